package vrvm

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The statistics' binary format, version 1, little-endian throughout,
// so that workers can send their statistics to a driver and files of
// statistics can be merged and fitted later:
//
//	offset  size  field
//	0       8     magic "VRVMSTAT"
//	8       2     format version, 1
//	10      2     kind: 1 regression (Stats), 2 classification (ClassStats)
//	12      4     C, the number of basis functions (uint32, > 0)
//	16      8     N, the number of rows (uint64)
//	24      …     payload: float64 values (IEEE 754) and integers
//	end−4   4     CRC-32C (Castagnoli) of every byte before it
//
// The regression payload is tᵀt, Σₙtₙ, Φᵀt (C values) and the upper
// triangle of ΦᵀΦ by rows (C(C+1)/2 values). The classification payload
// is the number of labels 1 (uint64), the pass (uint32), the number M of
// functions of the previous posterior (uint32; 0 on the first pass), ξ₀,
// K and the previous fit's bound term (float64), b (C values), the upper
// triangle of A by rows, the posterior's functions (M uint32, increasing,
// below C), its mean (M values) and the upper triangle of its covariance
// (M(M+1)/2 values). Unmarshalling checks the length, the magic, the
// version, the kind, the checksum and that every value is finite, and
// returns a *StatsFormatError naming the first problem.

const (
	statsMagic   = "VRVMSTAT"
	statsVersion = 1
	statsHeader  = 24
	kindRegress  = 1
	kindClass    = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// StatsFormatError reports serialised statistics that cannot be read.
type StatsFormatError struct {
	Reason string
}

func (e *StatsFormatError) Error() string { return "vrvm: bad statistics data: " + e.Reason }

// MarshalBinary encodes s in the statistics' binary format, version 1.
func (s *Stats) MarshalBinary() ([]byte, error) {
	if s == nil || s.c == 0 {
		return nil, &StatsFormatError{Reason: "statistics not made by NewStats"}
	}
	b := statsHeaderBytes(kindRegress, s.c, s.n, 8*(2+s.c+s.c*(s.c+1)/2))
	b = appendFloats(b, s.tt, s.sum)
	b = appendFloats(b, s.phiT...)
	b = appendUpper(b, s.gram)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// UnmarshalBinary sets s to the statistics data encodes (MarshalBinary),
// replacing what s held. It returns a *StatsFormatError for data that are
// not valid regression statistics, leaving s unchanged.
func (s *Stats) UnmarshalBinary(data []byte) error {
	r, err := readStats(data, kindRegress)
	if err != nil {
		return err
	}
	c := r.c
	if want := 8 * (2 + c + c*(c+1)/2); len(r.b) != want {
		return &StatsFormatError{Reason: fmt.Sprintf("%d bytes of regression payload for C = %d, want %d", len(r.b), c, want)}
	}
	tt, sum := r.float(), r.float()
	phiT := r.floats(c)
	gram := r.upper(c)
	if r.err != nil {
		return r.err
	}
	*s = Stats{c: c, gram: gram, phiT: phiT, tt: tt, sum: sum, n: r.n}
	return nil
}

// MarshalBinary encodes s, with the posterior its pass computes ξ from,
// in the statistics' binary format, version 1.
func (s *ClassStats) MarshalBinary() ([]byte, error) {
	if s == nil || s.c == 0 {
		return nil, &StatsFormatError{Reason: "statistics not made by Classifier.FitPasses"}
	}
	m := len(s.cols)
	b := statsHeaderBytes(kindClass, s.c, s.n, 16+8*(3+s.c+s.c*(s.c+1)/2)+4*m+8*(m+m*(m+1)/2))
	b = binary.LittleEndian.AppendUint64(b, uint64(s.n1))
	b = s.appendPosterior(b)
	b = appendFloats(b, s.k, s.lik)
	b = appendFloats(b, s.b...)
	b = appendUpper(b, s.a)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// appendPosterior appends the pass, M, ξ₀, the posterior's functions,
// mean and covariance: the part of the format that identifies a pass.
func (s *ClassStats) appendPosterior(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(s.pass))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.cols)))
	b = appendFloats(b, s.xi0)
	for _, j := range s.cols {
		b = binary.LittleEndian.AppendUint32(b, uint32(j))
	}
	b = appendFloats(b, s.mu...)
	if s.sigma != nil {
		b = appendUpper(b, s.sigma)
	}
	return b
}

// posteriorID returns the checksum of the pass and its posterior.
func (s *ClassStats) posteriorID() uint32 { return crc32.Checksum(s.appendPosterior(nil), castagnoli) }

// UnmarshalBinary sets s to the statistics data encodes (MarshalBinary),
// replacing what s held. It returns a *StatsFormatError for data that are
// not valid classification statistics, leaving s unchanged.
func (s *ClassStats) UnmarshalBinary(data []byte) error {
	r, err := readStats(data, kindClass)
	if err != nil {
		return err
	}
	c := r.c
	if len(r.b) < 32 {
		return &StatsFormatError{Reason: "classification payload too short"}
	}
	n1 := r.uint(8)
	pass, m := r.uint(4), r.uint(4)
	if want := 16 + 8*(3+c+c*(c+1)/2) + 4*m + 8*(m+m*(m+1)/2); m > c || len(r.b) != want {
		return &StatsFormatError{Reason: fmt.Sprintf("%d bytes of classification payload for C = %d and M = %d", len(r.b), c, m)}
	}
	o := ClassStats{c: c, n: r.n, n1: n1, pass: pass}
	o.xi0 = r.float()
	if m > 0 {
		o.cols = make([]int, m)
		for i := range o.cols {
			o.cols[i] = r.uint(4)
			if o.cols[i] >= c || (i > 0 && o.cols[i] <= o.cols[i-1]) {
				return &StatsFormatError{Reason: fmt.Sprintf("posterior function %d is %d: not increasing below C = %d", i, o.cols[i], c)}
			}
		}
		o.mu = r.floats(m)
		o.sigma = r.upper(m)
	}
	o.k, o.lik = r.float(), r.float()
	o.b = r.floats(c)
	o.a = r.upper(c)
	switch {
	case r.err != nil:
		return r.err
	case n1 > r.n:
		return &StatsFormatError{Reason: fmt.Sprintf("%d labels 1 among %d rows", n1, r.n)}
	case pass < 1 || (pass == 1) != (m == 0):
		return &StatsFormatError{Reason: fmt.Sprintf("pass %d with a posterior of %d functions", pass, m)}
	case !(o.xi0 > 0):
		return &StatsFormatError{Reason: fmt.Sprintf("ξ₀ = %v", o.xi0)}
	}
	o.postID = o.posteriorID()
	*s = o
	return nil
}

func statsHeaderBytes(kind, c, n, payload int) []byte {
	b := make([]byte, 0, statsHeader+payload+4)
	b = append(b, statsMagic...)
	b = binary.LittleEndian.AppendUint16(b, statsVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(kind))
	b = binary.LittleEndian.AppendUint32(b, uint32(c))
	return binary.LittleEndian.AppendUint64(b, uint64(n))
}

func appendFloats(b []byte, v ...float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func appendUpper(b []byte, a *mat.SymDense) []byte {
	n := a.SymmetricDim()
	raw := a.RawSymmetric()
	for i := range n {
		b = appendFloats(b, raw.Data[i*raw.Stride+i:i*raw.Stride+n]...)
	}
	return b
}

// statsReader reads a payload, recording the first problem.
type statsReader struct {
	b    []byte
	c, n int
	off  int
	err  error
}

// readStats checks the header and checksum of data and returns a reader
// of its payload.
func readStats(data []byte, kind int) (*statsReader, error) {
	if len(data) < statsHeader+4 {
		return nil, &StatsFormatError{Reason: fmt.Sprintf("%d bytes: shorter than the header", len(data))}
	}
	if string(data[:8]) != statsMagic {
		return nil, &StatsFormatError{Reason: "no VRVMSTAT magic: not vrvm statistics"}
	}
	if v := binary.LittleEndian.Uint16(data[8:]); v != statsVersion {
		return nil, &StatsFormatError{Reason: fmt.Sprintf("format version %d, this library reads %d", v, statsVersion)}
	}
	body := data[:len(data)-4]
	if got, want := binary.LittleEndian.Uint32(data[len(data)-4:]), crc32.Checksum(body, castagnoli); got != want {
		return nil, &StatsFormatError{Reason: fmt.Sprintf("checksum %08x, data give %08x: truncated or corrupted", got, want)}
	}
	if k := binary.LittleEndian.Uint16(data[10:]); int(k) != kind {
		names := map[int]string{kindRegress: "regression", kindClass: "classification"}
		return nil, &StatsFormatError{Reason: fmt.Sprintf("kind %d (%s), want %d (%s)", k, names[int(k)], kind, names[kind])}
	}
	c := binary.LittleEndian.Uint32(data[12:])
	n := binary.LittleEndian.Uint64(data[16:])
	if c == 0 || c > 1<<20 || n > math.MaxInt64 {
		return nil, &StatsFormatError{Reason: fmt.Sprintf("C = %d, N = %d", c, n)}
	}
	return &statsReader{b: body[statsHeader:], c: int(c), n: int(n)}, nil
}

func (r *statsReader) uint(size int) int {
	if r.err != nil || r.off+size > len(r.b) {
		r.fail("payload too short")
		return 0
	}
	var v uint64
	if size == 4 {
		v = uint64(binary.LittleEndian.Uint32(r.b[r.off:]))
	} else {
		v = binary.LittleEndian.Uint64(r.b[r.off:])
	}
	r.off += size
	if v > math.MaxInt64 {
		r.fail("integer beyond int64")
	}
	return int(v)
}

func (r *statsReader) float() float64 {
	if r.err != nil || r.off+8 > len(r.b) {
		r.fail("payload too short")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.off:]))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail(fmt.Sprintf("value %v at payload byte %d", v, r.off))
	}
	r.off += 8
	return v
}

func (r *statsReader) floats(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.float()
	}
	return v
}

// upper reads the upper triangle of an n × n symmetric matrix by rows.
func (r *statsReader) upper(n int) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, r.float())
		}
	}
	return a
}

func (r *statsReader) fail(reason string) {
	if r.err == nil {
		r.err = &StatsFormatError{Reason: reason}
	}
}
