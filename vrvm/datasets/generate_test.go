package datasets

import (
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestSincTrue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ x, want float64 }{
		{0, 1},
		{math.Copysign(0, -1), 1},
		{math.Pi, 0},
		{-math.Pi / 2, 2 / math.Pi},
		{1, math.Sin(1)},
		{1e-300, 1},
		{math.Inf(1), 0},
		{math.Inf(-1), 0},
	} {
		if got := SincTrue(tc.x); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("SincTrue(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if got := SincTrue(math.NaN()); !math.IsNaN(got) {
		t.Errorf("SincTrue(NaN) = %v, want NaN", got)
	}
}

func TestSincArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n     int
		noise float64
	}{
		{0, 0.1}, {-1, 0.1}, {10, -0.1}, {10, math.NaN()}, {10, math.Inf(1)},
	} {
		if d, err := Sinc(tc.n, tc.noise, 1); err == nil || d != nil {
			t.Errorf("Sinc(%d, %v, 1) = %v, %v; want an error", tc.n, tc.noise, d, err)
		}
	}
	if d, err := Ripley(0, 1); err == nil || d != nil {
		t.Errorf("Ripley(0, 1) = %v, %v; want an error", d, err)
	}
	if d, err := Ripley(-4, 1); err == nil || d != nil {
		t.Errorf("Ripley(-4, 1) = %v, %v; want an error", d, err)
	}
}

func TestSincReproducible(t *testing.T) {
	t.Parallel()
	a, err := Sinc(50, 0.1, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Sinc(50, 0.1, 7)
	c, _ := Sinc(50, 0.1, 8)
	if a.Len() != 50 || a.Dim() != 1 || !reflect.DeepEqual(a.Columns, []string{"x"}) || a.Target != "t" {
		t.Fatalf("Sinc(50, …): Len %d, Dim %d, Columns %q, Target %q", a.Len(), a.Dim(), a.Columns, a.Target)
	}
	if !mat.Equal(a.X, b.X) || !reflect.DeepEqual(a.T, b.T) {
		t.Error("Sinc with the same seed differs")
	}
	if mat.Equal(a.X, c.X) || reflect.DeepEqual(a.T, c.T) {
		t.Error("Sinc with seeds 7 and 8 is the same")
	}
	// The inputs do not depend on the noise level; without noise the
	// targets are the sinc function.
	z, _ := Sinc(50, 0, 7)
	if !mat.Equal(a.X, z.X) {
		t.Error("Sinc inputs depend on the noise level")
	}
	for i := range z.T {
		if x := z.X.At(i, 0); z.T[i] != SincTrue(x) {
			t.Errorf("noise-free Sinc: t(%v) = %v, want %v", x, z.T[i], SincTrue(x))
		}
	}
}

// TestSincDistribution checks x ~ U(−10, 10) and the noise ~ N(0, σ²).
func TestSincDistribution(t *testing.T) {
	t.Parallel()
	const (
		n     = 20000
		sigma = 0.1
	)
	d, err := Sinc(n, sigma, 42)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.Col(nil, 0, d.X)
	for _, v := range x {
		if v < -10 || v >= 10 {
			t.Fatalf("x = %v outside [−10, 10)", v)
		}
	}
	// Uniform(−10, 10): mean 0, variance 100/3; 4-standard-error bounds.
	mx, vx := stat.MeanVariance(x, nil)
	if math.Abs(mx) > 4*math.Sqrt(100.0/3/n) {
		t.Errorf("mean x = %v, want 0 ± %v", mx, 4*math.Sqrt(100.0/3/n))
	}
	if vu := 100.0 / 3; math.Abs(vx-vu)/vu > 4*math.Sqrt(0.8/n) { // var of U² terms: (4/5)·vu² relative
		t.Errorf("var x = %v, want %v", vx, vu)
	}
	r := make([]float64, n)
	within := 0
	for i := range r {
		r[i] = d.T[i] - SincTrue(x[i])
		if math.Abs(r[i]) < sigma {
			within++
		}
	}
	mr, sr := stat.MeanStdDev(r, nil)
	if tol := 4 * sigma / math.Sqrt(n); math.Abs(mr) > tol {
		t.Errorf("noise mean = %v, want 0 ± %v", mr, tol)
	}
	if tol := 4 / math.Sqrt(2*n); math.Abs(sr/sigma-1) > tol {
		t.Errorf("noise sd = %v, want %v within a relative %v", sr, sigma, tol)
	}
	// Normal, not just the right variance: P(|ε| < σ) = erf(1/√2).
	p := math.Erf(1 / math.Sqrt2)
	if got, tol := float64(within)/n, 4*math.Sqrt(p*(1-p)/n); math.Abs(got-p) > tol {
		t.Errorf("P(|ε| < σ) = %v, want %v ± %v", got, p, tol)
	}
}

func TestRipleyReproducible(t *testing.T) {
	t.Parallel()
	a, err := Ripley(60, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Ripley(60, 3)
	c, _ := Ripley(60, 4)
	if a.Len() != 60 || a.Dim() != 2 || !reflect.DeepEqual(a.Columns, []string{"xs", "ys"}) || a.Target != "yc" {
		t.Fatalf("Ripley(60, …): Len %d, Dim %d, Columns %q, Target %q", a.Len(), a.Dim(), a.Columns, a.Target)
	}
	if !mat.Equal(a.X, b.X) || !reflect.DeepEqual(a.T, b.T) {
		t.Error("Ripley with the same seed differs")
	}
	if mat.Equal(a.X, c.X) {
		t.Error("Ripley with seeds 3 and 4 is the same")
	}
}

func TestRipleyBalance(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 7, 60, 1001} {
		d, err := Ripley(n, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		var ones int
		for _, v := range d.T {
			switch v {
			case 0:
			case 1:
				ones++
			default:
				t.Fatalf("Ripley(%d): label %v", n, v)
			}
		}
		if ones != n/2 {
			t.Errorf("Ripley(%d): %d examples of class 1, want %d", n, ones, n/2)
		}
	}
	// Rows are shuffled: the first 20 of 1000 hold both classes.
	d, _ := Ripley(1000, 5)
	first := d.T[0]
	mixed := false
	for _, v := range d.T[:20] {
		mixed = mixed || v != first
	}
	if !mixed {
		t.Error("Ripley: the first 20 rows are all one class; rows are not shuffled")
	}
}

// TestRipleyMoments checks each class's mean and variances against those of
// the mixture: mean of the two component means, and variance 0.03 plus the
// variance of the component means.
func TestRipleyMoments(t *testing.T) {
	t.Parallel()
	const n = 20000
	d, err := Ripley(n, 11)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range []struct{ mx, my, vx, vy float64 }{
		{-0.2, 0.3, 0.03 + 0.25, 0.03},      // class 0: x means −0.7, 0.3
		{0.05, 0.7, 0.03 + 0.35*0.35, 0.03}, // class 1: x means −0.3, 0.4
	} {
		var xs, ys []float64
		for i, v := range d.T {
			if v == float64(c) {
				xs = append(xs, d.X.At(i, 0))
				ys = append(ys, d.X.At(i, 1))
			}
		}
		m := float64(len(xs))
		mx, vx := stat.MeanVariance(xs, nil)
		my, vy := stat.MeanVariance(ys, nil)
		if tol := 4 * math.Sqrt(want.vx/m); math.Abs(mx-want.mx) > tol {
			t.Errorf("class %d: mean xs = %v, want %v ± %v", c, mx, want.mx, tol)
		}
		if tol := 4 * math.Sqrt(want.vy/m); math.Abs(my-want.my) > tol {
			t.Errorf("class %d: mean ys = %v, want %v ± %v", c, my, want.my, tol)
		}
		// Relative standard error of a sample variance is below 2/√m
		// for these mixtures (kurtosis below 5).
		if tol := 4 * 2 / math.Sqrt(m); math.Abs(vx/want.vx-1) > tol {
			t.Errorf("class %d: var xs = %v, want %v", c, vx, want.vx)
		}
		if tol := 4 * 2 / math.Sqrt(m); math.Abs(vy/want.vy-1) > tol {
			t.Errorf("class %d: var ys = %v, want %v", c, vy, want.vy)
		}
	}
}

// bayesErrors counts the examples of d the Bayes classifier of Ripley's
// problem gets wrong.
func bayesErrors(d *Dataset) int {
	wrong := 0
	for i, c := range d.T {
		xs, ys := d.X.At(i, 0), d.X.At(i, 1)
		pred := 0.0
		if RipleyDensity(xs, ys, 1) > RipleyDensity(xs, ys, 0) {
			pred = 1
		}
		if pred != c {
			wrong++
		}
	}
	return wrong
}

// TestRipleyBayesError checks the generator and RipleyDensity together:
// the Bayes error of the problem is 8.93% (Monte Carlo with 4·10⁶ draws
// in numpy).
func TestRipleyBayesError(t *testing.T) {
	t.Parallel()
	const (
		n     = 20000
		bayes = 0.0893
	)
	d, err := Ripley(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := float64(bayesErrors(d)) / n
	if tol := 4 * math.Sqrt(bayes*(1-bayes)/n); math.Abs(got-bayes) > tol {
		t.Errorf("Bayes error on generated data = %v, want %v ± %v", got, bayes, tol)
	}
}

// TestRipleyBayesErrorTestSet checks RipleyDensity against Ripley's own
// test set: the Bayes rule makes 80 errors in 1000, the 8.0% Ripley (1996)
// and the paper (Table 3) quote.
func TestRipleyBayesErrorTestSet(t *testing.T) {
	// Not parallel: useSharedData points $VRVM_DATA at the shared files (t.Setenv).
	useSharedData(t)
	_, test, err := LoadRipley()
	if err != nil {
		t.Fatal(err)
	}
	if got := bayesErrors(test); got != 80 {
		t.Errorf("Bayes rule errors on ripley_test.csv = %d, want 80", got)
	}
}

func TestRipleyDensity(t *testing.T) {
	t.Parallel()
	// At a component mean, the density is half the component's peak plus
	// the other component's tail.
	peak := 1 / (2 * math.Pi * RipleyVar)
	other := peak * math.Exp(-1.0/(2*RipleyVar)) // components 1 apart
	if got, want := RipleyDensity(-0.7, 0.3, 0), 0.5*(peak+other); math.Abs(got-want) > 1e-12*want {
		t.Errorf("RipleyDensity(−0.7, 0.3, 0) = %v, want %v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("RipleyDensity with class 2 did not panic")
		}
	}()
	RipleyDensity(0, 0, 2)
}

func TestRipley3(t *testing.T) {
	t.Parallel()
	d, err := Ripley3(300, 1)
	if err != nil {
		t.Fatal(err)
	}
	count := [3]int{}
	var bayesRight int
	for i, v := range d.T {
		c := int(v)
		count[c]++
		best := 0
		for k := 1; k < 3; k++ {
			if Ripley3Density(d.X.At(i, 0), d.X.At(i, 1), k) > Ripley3Density(d.X.At(i, 0), d.X.At(i, 1), best) {
				best = k
			}
		}
		if best == c {
			bayesRight++
		}
	}
	if count != [3]int{100, 100, 100} {
		t.Errorf("class counts %v, want 100 each", count)
	}
	// The classes overlap but the Bayes rule is right most of the time.
	if bayesRight < 240 || bayesRight == 300 {
		t.Errorf("Bayes rule right on %d of 300", bayesRight)
	}
	if _, err := Ripley3(0, 1); err == nil {
		t.Error("Ripley3(0): no error")
	}
}
