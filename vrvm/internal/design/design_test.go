package design

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sqDist is K(x, y) = c + ‖x − y‖², known only through Eval.
type sqDist struct{ c float64 }

func (k sqDist) Eval(x, y []float64) float64 {
	s := k.c
	for i := range x {
		d := x[i] - y[i]
		s += d * d
	}
	return s
}

// skew is a Block whose K(x, y) = x₀ − 2y₀ is not symmetric; bad, if
// set, makes EvalBlock write +Inf at [0, 0] (Eval stays finite).
type skew struct{ bad bool }

func (skew) Eval(x, y []float64) float64 { return x[0] - 2*y[0] }

func (k skew) EvalBlock(dst, x, c *mat.Dense) {
	n, _ := x.Dims()
	m, _ := c.Dims()
	for i := range n {
		for j := range m {
			dst.Set(i, j, x.At(i, 0)-2*c.At(j, 0))
		}
	}
	if k.bad {
		dst.Set(0, 0, math.Inf(1))
	}
}

// nanAt is a kernel whose value at (row, col) of the block is NaN.
type nanAt struct{ x0, c0 float64 }

func (k nanAt) Eval(x, y []float64) float64 {
	if x[0] == k.x0 && y[0] == k.c0 {
		return math.NaN()
	}
	return 1
}

func randDense(rnd *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, rnd.NormFloat64())
		}
	}
	return m
}

// TestFill checks Fill against Eval for a kernel without EvalBlock, a
// non-symmetric Block (row-major and transposed), a Scaled kernel, a
// non-finite block value that Eval replaces, and a non-finite Eval.
func TestFill(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 1))
	x, c := randDense(rnd, 5, 2), randDense(rnd, 3, 2)
	for _, k := range []Kernel{sqDist{1}, skew{}, skew{bad: true}, Scaled{K: sqDist{2}, S: 4}, Scaled{K: skew{}, S: 3}} {
		for _, byCols := range []bool{false, true} {
			dst := mat.NewDense(5, 3, nil)
			if byCols {
				dst = mat.NewDense(3, 5, nil)
			}
			if err := Fill(k, dst, x, c, 0, []int{0, 1, 2}, byCols); err != nil {
				t.Fatalf("%v: %v", k, err)
			}
			for i := range 5 {
				for j := range 3 {
					want := k.Eval(x.RawRowView(i), c.RawRowView(j))
					var got float64
					if byCols {
						got = dst.At(j, i)
					} else {
						got = dst.At(i, j)
					}
					if got != want {
						t.Errorf("%v byCols=%v [%d, %d]: %v, Eval %v", k, byCols, i, j, got, want)
					}
				}
			}
		}
	}
	k := nanAt{x0: x.At(3, 0), c0: c.At(2, 0)}
	err := Fill(k, mat.NewDense(5, 3, nil), x, c, 10, []int{7, 8, 9}, false)
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Row != 13 || nf.Col != 9 || !math.IsNaN(nf.Value) {
		t.Errorf("NaN at row 3, centre 2: %v", err)
	}
}

// TestColumns checks the kernel columns of a design with the bias first,
// in the middle and last, against Eval, and that stop ends it.
func TestColumns(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 2))
	x, centres := randDense(rnd, 300, 3), randDense(rnd, 40, 3)
	for _, bias := range []int{-1, 0, 2, 5} {
		cols := 6
		var pos, centre []int
		for j := range cols {
			if j != bias {
				pos, centre = append(pos, j), append(centre, (7*j)%40)
			}
		}
		for _, k := range []Kernel{sqDist{0.5}, skew{}} {
			phi := mat.NewDense(300, cols, nil)
			if err := Columns(phi, k, x, centres, pos, centre, nil); err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				for j, p := range pos {
					if want := k.Eval(x.RawRowView(i), centres.RawRowView(centre[j])); phi.At(i, p) != want {
						t.Fatalf("bias %d, %v: [%d, %d] %v, Eval %v", bias, k, i, p, phi.At(i, p), want)
					}
				}
				if bias >= 0 && phi.At(i, bias) != 0 {
					t.Fatalf("bias %d: column written", bias)
				}
			}
		}
	}
	stop := errors.New("stop")
	phi := mat.NewDense(300, 1, nil)
	if err := Columns(phi, sqDist{}, x, centres, []int{0}, []int{0}, func() error { return stop }); !errors.Is(err, stop) {
		t.Errorf("stop: %v", err)
	}
}

// TestParallel: every row is covered once, and the error is the lowest
// failing block's.
func TestParallel(t *testing.T) {
	t.Parallel()
	const n = 10000
	seen := make([]int, n)
	err := Parallel(n, 100, 64, nil, func(lo, hi, _ int) error {
		for i := lo; i < hi; i++ {
			seen[i]++
		}
		if lo >= 5000 {
			return &NonFiniteError{Row: lo}
		}
		return nil
	})
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Row != 5000 {
		t.Errorf("error %v, want the block at row 5000", err)
	}
	for i := range 5000 {
		if seen[i] != 1 {
			t.Fatalf("row %d seen %d times", i, seen[i])
		}
	}
}

// TestUnit: a kernel of root mean square above 1 is divided by it (U1);
// one bounded by 1 is returned as it is.
func TestUnit(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 3))
	c := randDense(rnd, 20, 1)
	k, err := Unit(skew{}, c)
	if err != nil {
		t.Fatal(err)
	}
	v := mat.NewDense(20, 20, nil)
	if err := Fill(skew{}, v, c, c, 0, nil, false); err != nil {
		t.Fatal(err)
	}
	s, ok := k.(Scaled)
	if want := RMS(v.RawMatrix().Data); !ok || s.S != want || !(want > 1) {
		t.Errorf("Unit gives %v, want Scaled by %v", k, want)
	}
	small := Scaled{K: sqDist{}, S: 1e6}
	if k, err := Unit(small, c); err != nil || k != Kernel(small) {
		t.Errorf("bounded kernel: %v, %v", k, err)
	}
}

// TestCentreRows: the subset is sorted, distinct, the same on every call,
// and nil where every row is a centre.
func TestCentreRows(t *testing.T) {
	t.Parallel()
	r := CentreRows(1000, 100, true)
	if len(r) != 100 || !slices.IsSorted(r) || len(slices.Compact(slices.Clone(r))) != 100 || !slices.Equal(r, CentreRows(1000, 100, true)) {
		t.Errorf("CentreRows(1000, 100): %v", r)
	}
	if CentreRows(100, 100, true) != nil || CentreRows(1000, 10, false) != nil || CentreRows(DefaultMaxCentres, 0, true) != nil {
		t.Error("a subset where every row is a centre")
	}
}

// TestDistinctRows groups rows equal bit for bit (with the key), and
// Twins marks those and the rows within TwinTol of an earlier one.
func TestDistinctRows(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(5, 2, []float64{1, 2, 3, 4, 1, 2, 1, 2 * (1 + 1e-13), 3, 4})
	of, first := DistinctRows(x, nil)
	if !slices.Equal(of, []int{0, 1, 0, 2, 1}) || !slices.Equal(first, []int{0, 1, 3}) {
		t.Errorf("DistinctRows: of %v, first %v", of, first)
	}
	_, first = DistinctRows(x, []float64{0, 0, 1, 0, 0})
	if !slices.Equal(first, []int{0, 1, 2, 3}) {
		t.Errorf("DistinctRows with a key: first %v", first)
	}
	if tw := Twins(x); !slices.Equal(tw, []bool{false, false, true, true, true}) {
		t.Errorf("Twins %v", tw)
	}
}

// TestNearTwinsWindow checks that NearTwins, which compares only rows of
// nearly equal norms, marks the rows that comparing every pair marks:
// rows within, at and just beyond TwinTol of earlier ones, chains of
// near twins, rows of equal norm and zero rows.
func TestNearTwinsWindow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const p, r = 600, 5
	b := mat.NewDense(p, r, nil)
	for i := range p {
		row := b.RawRowView(i)
		switch {
		case i >= 20 && i%7 == 0:
			// A near copy of an earlier row, at a distance from 0.2 to 2
			// times TwinTol relative.
			src := b.RawRowView(rng.IntN(i))
			f := TwinTol * (0.2 + 1.8*rng.Float64()) / math.Sqrt(r)
			for k, v := range src {
				row[k] = v * (1 + f*float64(1-2*(k%2)))
			}
		case i%11 == 0:
			// A permutation of an earlier row: the same norm, far away.
			src := b.RawRowView(rng.IntN(max(i, 1)))
			for k := range row {
				row[k] = src[(k+1)%r]
			}
		case i%97 == 0:
			// A zero row.
		default:
			for k := range row {
				row[k] = rng.NormFloat64()
			}
		}
	}
	_, first := DistinctRows(b, nil)
	want := make([]bool, p)
	got := make([]bool, p)
	norm := make([]float64, len(first))
	for a, i := range first {
		for _, v := range b.RawRowView(i) {
			norm[a] += v * v
		}
	}
	nearTwinsAll(b, first, want, norm)
	NearTwins(b, first, got)
	n := 0
	for _, v := range want {
		if v {
			n++
		}
	}
	if n < 10 || !slices.Equal(got, want) {
		t.Errorf("NearTwins marked %v, comparing every pair %v (%d twins)", got, want, n)
	}
}
