// Streaming fits the variational RVM to a CSV file larger than the memory
// the program allows itself, through the library's sufficient statistics
// (vrvm.Stats), and checks the fit against an in-memory fit on the same
// basis. See docs/streaming.md.
//
// It writes -rows rows of y = sin(x₁)cos(x₂) + 0.1·N(0, 1), x uniform on
// [−3, 3]², to a temporary CSV file, sets a soft memory limit of -limit
// MiB (debug.SetMemoryLimit), then reads the file once by blocks of 2,048
// rows: each block's design Φ (N_b × C) is added to ΦᵀΦ, Φᵀt, tᵀt, Σt
// and N (Stats.AddRows), so memory holds one block and the C × C sums,
// never the rows. It prints the file's size, the peak of the heap in use
// while streaming, the fit from the statistics (Regressor.FitStats), and
// the same fit from the first -sub rows held in memory (FitDesign on
// their design): the bound, and the predictions, agree.
//
//	go run ./examples/streaming [-rows 1000000] [-limit 24] [-centres 100]
//	vrvm run examples/streaming/streaming.go [-rows 300000] …
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func main() {
	rows := flag.Int("rows", 1000000, "rows of the CSV file")
	limit := flag.Int("limit", 24, "soft memory limit of the program, MiB")
	centres := flag.Int("centres", 100, "kernel functions (the first rows' inputs)")
	sub := flag.Int("sub", 5000, "rows of the in-memory fit")
	heap := flag.Bool("heap", true, "print the peak heap (it differs between the compiled and the interpreted program)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "vrvm-streaming-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "big.csv")
	size, err := writeCSV(path, *rows)
	if err != nil {
		log.Fatal(err)
	}
	debug.SetMemoryLimit(int64(*limit) << 20)
	fmt.Printf("file: %d rows, %.1f MiB; memory limit %d MiB\n", *rows, float64(size)/(1<<20), *limit)

	// The basis: a Gaussian of width 1 at each of the first C inputs
	// (the rows are independent, so the first C are a uniform sample)
	// and a bias.
	xc, _, err := readRows(path, *centres)
	if err != nil {
		log.Fatal(err)
	}
	b := vrvm.Basis{Kernel: vrvm.Gaussian{Width: 1}, Centres: xc}

	// One pass: the statistics of every row, by blocks; and of the first
	// -sub rows, for the check below.
	all, first := vrvm.NewStats(b.Dim()), vrvm.NewStats(b.Dim())
	peak, err := stream(path, b, all, first, *sub)
	if err != nil {
		log.Fatal(err)
	}
	if peak > uint64(*limit)<<20 {
		log.Fatalf("peak heap in use %.1f MiB, above the limit", float64(peak)/(1<<20))
	}
	if *heap {
		fmt.Printf("streamed %d rows; peak heap in use %.1f MiB\n", all.Rows(), float64(peak)/(1<<20))
	} else {
		fmt.Printf("streamed %d rows; peak heap in use below the limit\n", all.Rows())
	}

	r := &vrvm.Regressor{}
	if err := r.FitStats(b, all); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("from the statistics of all rows: %v, %d relevance vectors, noise sd %.4f\n", r.Status(), len(r.RelevanceVectors()), r.NoiseSD())

	// The check: the fit from the first rows' statistics against the fit
	// of those rows in memory on the same basis (its design).
	fs := &vrvm.Regressor{}
	if err := fs.FitStats(b, first); err != nil {
		log.Fatal(err)
	}
	xs, ts, err := readRows(path, *sub)
	if err != nil {
		log.Fatal(err)
	}
	phi, err := b.Design(xs)
	if err != nil {
		log.Fatal(err)
	}
	mem := &vrvm.Regressor{NoAugment: true, KeepDuplicates: true}
	if err := mem.FitDesign(phi, ts); err != nil {
		log.Fatal(err)
	}
	rel := math.Abs(fs.LowerBound()-mem.LowerBound()) / math.Abs(mem.LowerBound())
	fmt.Printf("first %d rows: bound from statistics %.10g, in memory %.10g (relative difference below 1e-8: %v)\n",
		*sub, fs.LowerBound(), mem.LowerBound(), rel < 1e-8)
	if !(rel < 1e-8) {
		log.Fatalf("the bounds differ by %.2g relative", rel)
	}
	xt := mat.NewDense(3, 2, []float64{0.5, 0.5, -1, 2, 2.5, -2.5})
	phit, _ := b.Design(xt)
	p1, _, _ := fs.Latent(xt)
	p2, _, _ := mem.Latent(phit)
	p3, _, _ := r.Latent(xt)
	for i := range p1 {
		x1, x2 := xt.At(i, 0), xt.At(i, 1)
		fmt.Printf("x = (%4.1f, %4.1f): sin x₁ cos x₂ = %7.4f; all rows %7.4f; first rows %7.4f (statistics), %7.4f (in memory)\n",
			x1, x2, math.Sin(x1)*math.Cos(x2), p3[i], p1[i], p2[i])
	}
}

// writeCSV writes n rows of the example's data and returns the file's size.
func writeCSV(path string, n int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(46, 1))
	fmt.Fprintln(w, "x1,x2,y")
	for i := 0; i < n; i++ {
		x1, x2 := 6*rng.Float64()-3, 6*rng.Float64()-3
		fmt.Fprintf(w, "%.6f,%.6f,%.6f\n", x1, x2, math.Sin(x1)*math.Cos(x2)+0.1*rng.NormFloat64())
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return fi.Size(), f.Close()
}

// readRows reads the first n rows of the file into memory.
func readRows(path string, n int) (*mat.Dense, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rr, err := datasets.NewRowReader(f, path, datasets.RowOptions{Columns: []string{"x1", "x2", "y"}})
	if err != nil {
		return nil, nil, err
	}
	x := mat.NewDense(n, 2, nil)
	t := make([]float64, n)
	row := make([]float64, 3)
	for i := 0; i < n; i++ {
		if err := rr.Next(row); err != nil {
			return nil, nil, err
		}
		x.Set(i, 0, row[0])
		x.Set(i, 1, row[1])
		t[i] = row[2]
	}
	return x, t, nil
}

// stream reads the file once by blocks of 2,048 rows, adding every block
// to all and the blocks of the first sub rows to first (sub a multiple
// of the block, or the first sub rows' stats take whole blocks up to
// it), and returns the peak heap in use, sampled after each block.
func stream(path string, b vrvm.Basis, all, first *vrvm.Stats, sub int) (uint64, error) {
	const block = 2048
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rr, err := datasets.NewRowReader(f, path, datasets.RowOptions{Columns: []string{"x1", "x2", "y"}})
	if err != nil {
		return 0, err
	}
	x := mat.NewDense(block, 2, nil)
	t := make([]float64, block)
	row := make([]float64, 3)
	var peak uint64
	var ms runtime.MemStats
	read := 0
	for {
		k := 0
		for ; k < block; k++ {
			if read+k == sub && k > 0 {
				break // the block ends at the first sub rows
			}
			err := rr.Next(row)
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, err
			}
			x.Set(k, 0, row[0])
			x.Set(k, 1, row[1])
			t[k] = row[2]
		}
		if k == 0 {
			return peak, nil
		}
		phi, err := b.Design(x.Slice(0, k, 0, 2))
		if err != nil {
			return 0, err
		}
		if err := all.AddRows(phi, t[:k]); err != nil {
			return 0, err
		}
		if read < sub {
			if err := first.AddRows(phi, t[:k]); err != nil {
				return 0, err
			}
		}
		read += k
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak {
			peak = ms.HeapInuse
		}
	}
}
