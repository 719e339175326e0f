package vrvm

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// readSplit reads a realworld CSV (header, target last) into inputs and
// integer labels.
func readSplit(t testing.TB, path string) (*mat.Dense, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	recs = recs[1:]
	d := len(recs[0]) - 1
	x := mat.NewDense(len(recs), d, nil)
	lab := make([]float64, len(recs))
	for i, r := range recs {
		for j := range d {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				t.Fatal(err)
			}
			x.Set(i, j, v)
		}
		lab[i], err = strconv.ParseFloat(r[d], 64)
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := IntLabels(lab)
	if err != nil {
		t.Fatal(err)
	}
	return x, l
}

// standardise maps the columns of train and test to the training mean 0
// and standard deviation 1 (constant columns are centred only).
func standardise(train, test *mat.Dense) {
	n, d := train.Dims()
	for j := range d {
		var m, s float64
		for i := range n {
			m += train.At(i, j)
		}
		m /= float64(n)
		for i := range n {
			s += (train.At(i, j) - m) * (train.At(i, j) - m)
		}
		s = math.Sqrt(s / float64(n))
		if s == 0 {
			s = 1
		}
		for _, x := range []*mat.Dense{train, test} {
			r, _ := x.Dims()
			for i := range r {
				x.Set(i, j, (x.At(i, j)-m)/s)
			}
		}
	}
}

func realSet(t testing.TB, name string) (xtr *mat.Dense, ltr []string, xte *mat.Dense, lte []string) {
	dir := os.Getenv("VRVM_DATA")
	if dir == "" {
		t.Skip("VRVM_DATA not set")
	}
	xtr, ltr = readSplit(t, filepath.Join(dir, "realworld", name+"_train.csv"))
	xte, lte = readSplit(t, filepath.Join(dir, "realworld", name+"_test.csv"))
	standardise(xtr, xte)
	return
}

func TestMultiExplore(t *testing.T) {
	if os.Getenv("VRVM_MC_EXPLORE") == "" {
		t.Skip("set VRVM_MC_EXPLORE")
	}
	name := os.Getenv("VRVM_MC_EXPLORE")
	xtr, ltr, xte, lte := realSet(t, name)
	_, d := xtr.Dims()
	w, _ := strconv.ParseFloat(os.Getenv("W"), 64)
	if w == 0 {
		w = math.Sqrt(float64(d))
	}
	for _, sol := range []Solver{Sequential, PaperSchedule} {
		pa, _ := strconv.ParseFloat(os.Getenv("PA"), 64)
		if os.Getenv("ONLY") != "" && os.Getenv("ONLY") != sol.String()[:1] {
			continue
		}
		c := &MultiClassifier{Kernel: Gaussian{Width: w}, Solver: sol, PruneAlpha: pa, NoPrune: os.Getenv("NP") != ""}
		start := time.Now()
		err := c.Fit(xtr, ltr)
		el := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		er, _ := c.ErrorRate(xte, lte)
		ll, _ := c.LogLoss(xte, lte)
		tr := c.BoundTrace()
		dec := 0
		for i := 1; i < len(tr); i++ {
			if tr[i] < tr[i-1]-1e-9*math.Abs(tr[i]) {
				dec++
			}
		}
		fmt.Printf("%s w=%.3g %v: err %.4f (%d) logloss %.4f RVs %d iters %d status %v bound %.6g decreases %d time %v\n", name, w, sol, er, int(math.Round(er*float64(len(lte)))), ll, len(c.RelevanceVectors()), c.Iterations(), c.Status(), c.LowerBound(), dec, el)
	}
}

// ovr fits one binary Classifier per class (one-vs-rest) with kernel k
// and returns the test error, the log loss of the normalised moderated
// probabilities, the number of distinct relevance vectors and the models.
func ovr(t testing.TB, k Kernel, xtr *mat.Dense, ltr []string, xte *mat.Dense, lte []string) (errRate, logLoss float64, rvs int) {
	classes, y, err := classIndex(ltr)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, c := range classes {
		pos[c] = i
	}
	nte, _ := xte.Dims()
	probs := mat.NewDense(nte, len(classes), nil)
	distinct := map[int]bool{}
	for c := range classes {
		tt := make([]float64, len(y))
		for i, v := range y {
			if v == c {
				tt[i] = 1
			}
		}
		m := &Classifier{Kernel: k}
		if err := m.Fit(xtr, tt); err != nil {
			t.Fatal(err)
		}
		for _, r := range m.RelevanceVectors() {
			distinct[r] = true
		}
		p, err := m.ProbModerated(xte)
		if err != nil {
			t.Fatal(err)
		}
		probs.SetCol(c, p)
	}
	var errs int
	for i := range nte {
		row := probs.RawRowView(i)
		s, best := 0.0, 0
		for j, v := range row {
			s += v
			if v > row[best] {
				best = j
			}
		}
		if classes[best] != lte[i] {
			errs++
		}
		logLoss -= math.Log(math.Max(row[pos[lte[i]]]/s, 1e-15))
	}
	return float64(errs) / float64(nte), logLoss / float64(nte), len(distinct)
}

func TestOvRExplore(t *testing.T) {
	if os.Getenv("VRVM_OVR_EXPLORE") == "" {
		t.Skip("set VRVM_OVR_EXPLORE")
	}
	name := os.Getenv("VRVM_OVR_EXPLORE")
	xtr, ltr, xte, lte := realSet(t, name)
	w, _ := strconv.ParseFloat(os.Getenv("W"), 64)
	start := time.Now()
	e, ll, rv := ovr(t, Gaussian{Width: w}, xtr, ltr, xte, lte)
	fmt.Printf("OvR %s w=%.3g: err %.4f (%d) logloss %.4f RVs %d time %v\n", name, w, e, int(math.Round(e*float64(len(lte)))), ll, rv, time.Since(start))
}
