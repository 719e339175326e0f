// Package statsbeam computes the sufficient statistics of a vrvm fit on a
// fixed basis with Apache Beam, for data sharded over a cluster's storage:
// a first pass (FirstPass: the inputs' and the target's means and
// standard deviations, and a seeded uniform sample of rows for the
// centres), then the statistics of regression (vrvm.Stats) or of one
// pass of binary classification (vrvm.ClassStats), each a CombineFn whose
// AddInput gathers rows into blocks for the library's dense products and
// whose MergeAccumulators adds sums, so that any runner (Prism, Flink,
// Spark, Dataflow) may split the rows among workers. The driver
// (cmd/vrvm-beam) fits the model from what the pipelines write:
// vrvm.Regressor.FitStats, or vrvm.Classifier.FitPasses with one pipeline
// run per pass. See docs/streaming.md.
//
// Input: CSV files (a glob) with a header line naming the columns, the
// same in every file; fields unquoted, every cell of the columns read a
// finite number (datasets.ParseNumber). A line equal to the header is
// skipped (every shard starts with one). Or Parquet files, for a glob
// ending in .parquet (ParquetFn): numeric or text columns by name, the
// same columns in every file.
package statsbeam

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local files
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func init() {
	register.DoFn3x1[string, string, func([]float64), error](&ParseFn{})
	register.Emitter1[[]float64]()
	register.Combiner3[*FirstAcc, []float64, *FirstAcc](&FirstFn{})
	// StatsFn's MergeAccumulators takes a context (for the merges
	// counter), which register.Combiner3 does not accept: reflection.
	beam.RegisterType(reflect.TypeOf((*StatsFn)(nil)).Elem())
	register.DoFn2x1[context.Context, []byte, error](&WriteFn{})
	register.DoFn2x1[context.Context, *FirstAcc, error](&WriteFirstFn{})
	beam.RegisterType(reflect.TypeOf((*FirstAcc)(nil)).Elem())
	beam.RegisterCoder(reflect.TypeOf((*StatsAcc)(nil)), encodeAcc, decodeAcc)
}

// ParseFn parses the lines of the CSV files (textio.ReadWithFilename's
// file and line) into rows: the columns at Fields (the inputs, then the
// target), skipping a line equal to Header.
type ParseFn struct {
	Header string
	Fields []int
	Width  int // fields per line
}

// ProcessElement emits the row of one line, or returns an error naming
// the file and quoting the line.
func (f *ParseFn) ProcessElement(file, line string, emit func([]float64)) error {
	if strings.TrimSpace(line) == "" || line == f.Header {
		return nil
	}
	parts := strings.Split(line, ",")
	if len(parts) != f.Width {
		return fmt.Errorf("%s: line %s: %d fields, the header has %d", file, quote(line), len(parts), f.Width)
	}
	row := make([]float64, len(f.Fields))
	for i, j := range f.Fields {
		v, err := datasets.ParseNumber(parts[j])
		if err != nil {
			return fmt.Errorf("%s: line %s: field %d: %w", file, quote(line), j+1, err)
		}
		row[i] = v
	}
	emit(row)
	return nil
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Rows reads the CSV files of glob (or its Parquet files, for a glob
// ending in .parquet: ParquetFn) into rows of the named columns (inputs,
// then the target), given the files' header line (for Parquet, the first
// file's columns joined by commas).
func Rows(s beam.Scope, glob, header string, columns []string) (beam.PCollection, error) {
	names := strings.Split(header, ",")
	pos := map[string]int{}
	for i, n := range names {
		pos[strings.TrimSpace(n)] = i
	}
	fields := make([]int, len(columns))
	for i, c := range columns {
		j, ok := pos[c]
		if !ok {
			return beam.PCollection{}, fmt.Errorf("no column %q in the header %q", c, header)
		}
		fields[i] = j
	}
	if IsParquet(glob) {
		return parquetRows(s, glob, header, columns), nil
	}
	lines := textio.ReadWithFilename(s, glob)
	return beam.ParDo(s, &ParseFn{Header: header, Fields: fields, Width: len(names)}, lines), nil
}

// FirstAcc is the first pass's accumulator: the count, means and sums of
// squared deviations of the D+1 columns (Welford; merged by Chan et al.'s
// formula), and the rows of the smallest Keys (a bottom-k sample: each
// row's key is a hash of the seed and its values, so the sample is
// uniform over distinct rows and the same whatever the split).
type FirstAcc struct {
	N    int64
	Mean []float64
	M2   []float64
	Keys []uint64
	Rows []float64 // len(Keys) rows of D+1 values
}

// FirstFn is the CombineFn of the first pass, keeping K rows.
type FirstFn struct {
	K    int
	Seed uint64
}

// CreateAccumulator returns an empty accumulator.
func (f *FirstFn) CreateAccumulator() *FirstAcc { return &FirstAcc{} }

// AddInput adds one row.
func (f *FirstFn) AddInput(a *FirstAcc, row []float64) *FirstAcc {
	if a.Mean == nil {
		a.Mean, a.M2 = make([]float64, len(row)), make([]float64, len(row))
	}
	a.N++
	for j, v := range row {
		d := v - a.Mean[j]
		a.Mean[j] += d / float64(a.N)
		a.M2[j] += d * (v - a.Mean[j])
	}
	a.Keys = append(a.Keys, rowKey(f.Seed, row))
	a.Rows = append(a.Rows, row...)
	if len(a.Keys) >= 2*f.K+64 {
		a.trim(f.K)
	}
	return a
}

// MergeAccumulators combines two accumulators.
func (f *FirstFn) MergeAccumulators(a, b *FirstAcc) *FirstAcc {
	switch {
	case b.N == 0:
		return a
	case a.N == 0:
		return b
	}
	n := a.N + b.N
	for j := range a.Mean {
		d := b.Mean[j] - a.Mean[j]
		a.M2[j] += b.M2[j] + d*d*float64(a.N)*float64(b.N)/float64(n)
		a.Mean[j] += d * float64(b.N) / float64(n)
	}
	a.N = n
	a.Keys = append(a.Keys, b.Keys...)
	a.Rows = append(a.Rows, b.Rows...)
	a.trim(f.K)
	return a
}

// ExtractOutput returns the accumulator with its K rows of the smallest
// keys, in key order.
func (f *FirstFn) ExtractOutput(a *FirstAcc) *FirstAcc {
	a.trim(f.K)
	return a
}

// trim keeps the k rows of the smallest keys, sorted by key.
func (a *FirstAcc) trim(k int) {
	if len(a.Keys) == 0 {
		return
	}
	d := len(a.Rows) / len(a.Keys)
	idx := make([]int, len(a.Keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(x, y int) bool { return a.Keys[idx[x]] < a.Keys[idx[y]] })
	idx = idx[:min(k, len(idx))]
	keys := make([]uint64, len(idx))
	rows := make([]float64, 0, len(idx)*d)
	for i, j := range idx {
		keys[i] = a.Keys[j]
		rows = append(rows, a.Rows[j*d:(j+1)*d]...)
	}
	a.Keys, a.Rows = keys, rows
}

// rowKey hashes the seed and the row's values (FNV-1a, 64 bits).
func rowKey(seed uint64, row []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, v := range row {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}

// Basis is what the statistics pass needs to evaluate the basis at a row:
// the standardisation of the inputs (and of a regression target), and
// the Gaussian kernel's width and centres in standardised units.
type Basis struct {
	D            int // inputs
	Mean, SD     []float64
	TMean, TSD   float64 // target; 0 and 1 for classification
	Width        float64
	Centres      []float64 // C rows of D values
	NoBias       bool
	Block        int // rows per block of the dense products; 0 means 2048
	PosteriorURL string
}

// Library returns the vrvm basis.
func (b *Basis) Library() vrvm.Basis {
	c := len(b.Centres) / b.D
	return vrvm.Basis{Kernel: vrvm.Gaussian{Width: b.Width}, Centres: mat.NewDense(c, b.D, b.Centres), NoBias: b.NoBias}
}

// StatsAcc is the statistics pass's accumulator: the statistics of the
// rows added in blocks, and the rows of the block being gathered.
type StatsAcc struct {
	Reg     *vrvm.Stats
	Cls     *vrvm.ClassStats
	Pending []float64 // rows of D+1 values not yet added
}

// StatsFn is the CombineFn of the statistics: regression (vrvm.Stats), or,
// with Classify, one pass of binary classification whose posterior (the
// empty vrvm.ClassStats the driver wrote, MarshalBinary) is read from
// Basis.PosteriorURL.
type StatsFn struct {
	Basis    Basis
	Classify bool

	basis vrvm.Basis
	empty *vrvm.ClassStats
}

func (f *StatsFn) setup() error {
	if f.basis.Kernel != nil {
		return nil
	}
	f.basis = f.Basis.Library()
	if f.Classify {
		data, err := readAll(context.Background(), f.Basis.PosteriorURL)
		if err != nil {
			return err
		}
		f.empty = new(vrvm.ClassStats)
		if err := f.empty.UnmarshalBinary(data); err != nil {
			return err
		}
	}
	return nil
}

// CreateAccumulator returns empty statistics.
func (f *StatsFn) CreateAccumulator() (*StatsAcc, error) {
	if err := f.setup(); err != nil {
		return nil, err
	}
	if f.Classify {
		return &StatsAcc{Cls: f.empty.Empty()}, nil
	}
	return &StatsAcc{Reg: vrvm.NewStats(f.basis.Dim())}, nil
}

// AddInput adds a row to the block, and the block to the statistics
// once it has Basis.Block rows.
func (f *StatsFn) AddInput(a *StatsAcc, row []float64) (*StatsAcc, error) {
	a.Pending = append(a.Pending, row...)
	block := f.Basis.Block
	if block == 0 {
		block = 2048
	}
	if len(a.Pending) >= block*(f.Basis.D+1) {
		return a, f.flush(a)
	}
	return a, nil
}

// flush adds the pending rows to the statistics.
func (f *StatsFn) flush(a *StatsAcc) error {
	if len(a.Pending) == 0 {
		return nil
	}
	if err := f.setup(); err != nil {
		return err
	}
	d := f.Basis.D
	n := len(a.Pending) / (d + 1)
	x := mat.NewDense(n, d, nil)
	t := make([]float64, n)
	for i := range n {
		r := a.Pending[i*(d+1) : (i+1)*(d+1)]
		for j := range d {
			x.Set(i, j, (r[j]-f.Basis.Mean[j])/f.Basis.SD[j])
		}
		t[i] = (r[d] - f.Basis.TMean) / f.Basis.TSD
	}
	phi, err := f.basis.Design(x)
	if err != nil {
		return err
	}
	if f.Classify {
		err = a.Cls.AddRows(phi, t)
	} else {
		err = a.Reg.AddRows(phi, t)
	}
	a.Pending = a.Pending[:0]
	return err
}

// MergesCounter is the name of the counter (namespace "statsbeam") that
// StatsFn.MergeAccumulators increments at each call: the runner's
// metrics show how many accumulators of different bundles were merged.
const MergesCounter = "merge_accumulators"

// MergeAccumulators adds the statistics of b to a.
func (f *StatsFn) MergeAccumulators(ctx context.Context, a, b *StatsAcc) (*StatsAcc, error) {
	beam.NewCounter("statsbeam", MergesCounter).Inc(ctx, 1)
	if err := f.flush(a); err != nil {
		return nil, err
	}
	if err := f.flush(b); err != nil {
		return nil, err
	}
	if f.Classify {
		return a, a.Cls.Merge(b.Cls)
	}
	return a, a.Reg.Merge(b.Reg)
}

// ExtractOutput returns the statistics in the library's binary format.
func (f *StatsFn) ExtractOutput(a *StatsAcc) ([]byte, error) {
	if err := f.flush(a); err != nil {
		return nil, err
	}
	if f.Classify {
		return a.Cls.MarshalBinary()
	}
	return a.Reg.MarshalBinary()
}

// encodeAcc is the accumulator's coder: a kind byte, the statistics'
// binary format, then the pending rows.
func encodeAcc(a *StatsAcc) ([]byte, error) {
	var stats []byte
	var err error
	kind := byte(0)
	if a.Cls != nil {
		kind = 1
		stats, err = a.Cls.MarshalBinary()
	} else {
		stats, err = a.Reg.MarshalBinary()
	}
	if err != nil {
		return nil, err
	}
	b := []byte{kind}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(stats)))
	b = append(b, stats...)
	for _, v := range a.Pending {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

func decodeAcc(b []byte) (*StatsAcc, error) {
	if len(b) < 9 {
		return nil, fmt.Errorf("statsbeam: accumulator of %d bytes", len(b))
	}
	n := binary.LittleEndian.Uint64(b[1:])
	if n > uint64(len(b)-9) || (uint64(len(b)-9)-n)%8 != 0 {
		return nil, fmt.Errorf("statsbeam: accumulator of %d bytes with %d of statistics", len(b), n)
	}
	a := &StatsAcc{}
	stats, rest := b[9:9+n], b[9+n:]
	if b[0] == 1 {
		a.Cls = new(vrvm.ClassStats)
		if err := a.Cls.UnmarshalBinary(stats); err != nil {
			return nil, err
		}
	} else {
		a.Reg = new(vrvm.Stats)
		if err := a.Reg.UnmarshalBinary(stats); err != nil {
			return nil, err
		}
	}
	for i := 0; i < len(rest); i += 8 {
		a.Pending = append(a.Pending, math.Float64frombits(binary.LittleEndian.Uint64(rest[i:])))
	}
	return a, nil
}

// WriteFn writes its one element to the file URL (any Beam filesystem).
type WriteFn struct{ URL string }

// ProcessElement writes b.
func (f *WriteFn) ProcessElement(ctx context.Context, b []byte) error { return writeAll(ctx, f.URL, b) }

// WriteFirstFn writes the first pass's accumulator, as JSON-free binary:
// N, D+1, then Mean, M2, the number of rows and the rows.
type WriteFirstFn struct{ URL string }

// ProcessElement writes a.
func (f *WriteFirstFn) ProcessElement(ctx context.Context, a *FirstAcc) error {
	return writeAll(ctx, f.URL, EncodeFirst(a))
}

// EncodeFirst encodes a first pass's result (DecodeFirst reads it).
func EncodeFirst(a *FirstAcc) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(a.N))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(a.Mean)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(a.Keys)))
	for _, s := range [][]float64{a.Mean, a.M2, a.Rows} {
		for _, v := range s {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// DecodeFirst decodes EncodeFirst's bytes (without the keys).
func DecodeFirst(b []byte) (*FirstAcc, error) {
	if len(b) < 24 {
		return nil, fmt.Errorf("statsbeam: first pass of %d bytes", len(b))
	}
	n, d, k := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	if d > 1<<20 || k > 1<<24 || uint64(len(b)) != 24+8*(2*d+k*d) {
		return nil, fmt.Errorf("statsbeam: first pass of %d bytes for %d columns and %d rows", len(b), d, k)
	}
	f := func(off, m uint64) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[24+8*(off+uint64(i)):]))
		}
		return v
	}
	return &FirstAcc{N: int64(n), Mean: f(0, d), M2: f(d, d), Rows: f(2*d, k*d)}, nil
}

func writeAll(ctx context.Context, url string, b []byte) error {
	fs, err := filesystem.New(ctx, url)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, url)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func readAll(ctx context.Context, url string) ([]byte, error) {
	fs, err := filesystem.New(ctx, url)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, url)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// ReadAll reads the file at url (any Beam filesystem).
func ReadAll(ctx context.Context, url string) ([]byte, error) { return readAll(ctx, url) }

// WriteAll writes b to the file at url (any Beam filesystem).
func WriteAll(ctx context.Context, url string, b []byte) error { return writeAll(ctx, url, b) }

// FirstPipeline builds the first pass: FirstFn over the rows, written to
// out (EncodeFirst).
func FirstPipeline(glob, header string, columns []string, k int, seed uint64, out string) (*beam.Pipeline, error) {
	p, s := beam.NewPipelineWithRoot()
	rows, err := Rows(s, glob, header, columns)
	if err != nil {
		return nil, err
	}
	acc := beam.Combine(s, &FirstFn{K: k, Seed: seed}, rows)
	beam.ParDo0(s, &WriteFirstFn{URL: out}, acc)
	return p, nil
}

// StatsPipeline builds a statistics pass: StatsFn over the rows, written
// to out in the library's binary format.
func StatsPipeline(glob, header string, columns []string, b Basis, classify bool, out string) (*beam.Pipeline, error) {
	p, s := beam.NewPipelineWithRoot()
	rows, err := Rows(s, glob, header, columns)
	if err != nil {
		return nil, err
	}
	stats := beam.Combine(s, &StatsFn{Basis: b, Classify: classify}, rows)
	beam.ParDo0(s, &WriteFn{URL: out}, stats)
	return p, nil
}
