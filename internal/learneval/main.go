// Command learneval measures kernel learning (issue 17) on Friedman #1
// (N = 1,000, d = 10, noise sd 1; error against the noise-free function
// at 1,000 test points), the shared real-world splits (diabetes, breast,
// digits38; inputs standardised with training statistics), the 25 sinc
// sets of 100 points and Ripley's data (250 training, 1,000 test points),
// printing each fit's error, calibration (±2σ coverage or Brier score of
// the moderated probabilities), learned kernel and CPU seconds.
//
//	go run ./internal/learneval [-only friedman,diabetes,…] [-kernel default|ard|width1|median|learn|w=R]
//	    [-spread S] [-augment] [-v]
//
// -spread sets KernelLearning.ScaleSpread, the hierarchical prior on ARD
// length scales (doc.go (K11)).
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readCSV reads a realworld split (header, target last) through the
// datasets package's CSV reader.
func readCSV(path string) (*mat.Dense, []float64) {
	tb, err := datasets.ReadCSVFile(path, datasets.CSVOptions{})
	if err != nil {
		log.Fatal(err)
	}
	cols := tb.Columns()
	d, err := tb.Dataset(cols[len(cols)-1])
	if err != nil {
		log.Fatal(err)
	}
	return d.X, d.T
}

// standardise maps the columns of train and test to the training mean 0
// and standard deviation 1.
func standardise(train, test *mat.Dense) {
	s, err := datasets.NewScaling(train)
	if err != nil {
		log.Fatal(err)
	}
	for _, x := range []*mat.Dense{train, test} {
		z, err := s.Apply(x)
		if err != nil {
			log.Fatal(err)
		}
		x.Copy(z)
	}
}

func realSplit(name string) (xtr *mat.Dense, ttr []float64, xte *mat.Dense, tte []float64) {
	base, err := datasets.Dir()
	if err != nil {
		log.Fatal(err)
	}
	dir := filepath.Join(base, "realworld")
	xtr, ttr = readCSV(filepath.Join(dir, name+"_train.csv"))
	xte, tte = readCSV(filepath.Join(dir, name+"_test.csv"))
	standardise(xtr, xte)
	return
}

var verbose = flag.Bool("v", false, "print every test probability")

var augment = flag.Bool("augment", true, "augment the predictions at the test point (the default; -augment=false: the plain model)")

var spread = flag.Float64("spread", 0, "KernelLearning.ScaleSpread")

var priorB = flag.Float64("prior-b", 0, "Prior.B, the rate of the weight precisions' hyperprior (0: the default)")

var kernelFlag = flag.String("kernel", "default", "default (nil Kernel), ard (ARDGaussian learned), width1 (Gaussian width 1), median (Gaussian at the median distance, not learned), learn (Gaussian{} learned)")

// fixedWidth parses -kernel w=r.
func fixedWidth() (float64, bool) {
	if v, ok := strings.CutPrefix(*kernelFlag, "w="); ok {
		w, err := strconv.ParseFloat(v, 64)
		if err != nil {
			log.Fatal(err)
		}
		return w, true
	}
	return 0, false
}

// kernelChoice returns the kernel and LearnKernel setting that -kernel
// names (a nil kernel without learning is the library's default).
func kernelChoice(x *mat.Dense) (vrvm.Kernel, bool) {
	if w, ok := fixedWidth(); ok {
		return vrvm.Gaussian{Width: w}, false
	}
	switch *kernelFlag {
	case "ard":
		return vrvm.ARDGaussian{}, true
	case "width1":
		return vrvm.Gaussian{Width: 1}, false
	case "median":
		return vrvm.Gaussian{Width: vrvm.MedianDistance(x)}, false
	case "learn":
		return nil, true
	}
	return nil, false
}

func regressor(x *mat.Dense) *vrvm.Regressor {
	k, learn := kernelChoice(x)
	return &vrvm.Regressor{Kernel: k, LearnKernel: learn, Learning: vrvm.KernelLearning{ScaleSpread: *spread}, Prior: vrvm.Prior{B: *priorB}}
}

func classifier(x *mat.Dense) *vrvm.Classifier {
	k, learn := kernelChoice(x)
	return &vrvm.Classifier{Kernel: k, LearnKernel: learn, Learning: vrvm.KernelLearning{ScaleSpread: *spread}, Prior: vrvm.Prior{B: *priorB}}
}

type fitter interface {
	FittedKernel() vrvm.Kernel
	LearnTrace() []float64
	RelevanceVectors() []int
	FullModelBound() float64
}

func describe(f fitter) string {
	return fmt.Sprintf("%d RVs, %d fits, bound %.2f, %v", len(f.RelevanceVectors()), len(f.LearnTrace()), f.FullModelBound(), f.FittedKernel())
}

// targetCoverage returns the expected ±2σ coverage of noisy targets
// f + ε, ε ~ N(0, noise²), for predictions m ± 2√v of the noise-free f:
// the mean of Φ((2√v − e)/noise) − Φ((−2√v − e)/noise), e = m − f.
func targetCoverage(m, v, f []float64, noise float64) float64 {
	var c float64
	for i := range m {
		e, s := m[i]-f[i], 2*math.Sqrt(v[i])
		c += 0.5 * (math.Erf((s-e)/(noise*math.Sqrt2)) - math.Erf((-s-e)/(noise*math.Sqrt2)))
	}
	return c / float64(len(m))
}

// regress fits and scores one regression set; noise > 0 is the sd of the
// training noise when truth is the noise-free function (then the
// expected coverage of noisy targets is printed too).
func regress(name string, xtr *mat.Dense, ttr []float64, xte *mat.Dense, truth []float64, noise float64) {
	r := regressor(xtr)
	r.NoAugment = !*augment
	c0 := cpu()
	if err := r.Fit(xtr, ttr); err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	sec := (cpu() - c0).Seconds()
	m, v, err := r.Predict(xte)
	if err != nil {
		log.Fatal(err)
	}
	var se float64
	var in int
	for i := range m {
		e := m[i] - truth[i]
		se += e * e
		if math.Abs(e) <= 2*math.Sqrt(v[i]) {
			in++
		}
	}
	tc := ""
	if noise > 0 {
		tc = fmt.Sprintf("  target coverage %.3f", targetCoverage(m, v, truth, noise))
	}
	fmt.Printf("%-10s RMSE %.4f  coverage %.3f%s  cpu %.1fs  %s\n", name, math.Sqrt(se/float64(len(m))), float64(in)/float64(len(m)), tc, sec, describe(r))
}

func classify(name string, xtr *mat.Dense, ttr []float64, xte *mat.Dense, tte []float64) {
	c := classifier(xtr)
	c.NoAugment = !*augment
	c0 := cpu()
	if err := c.Fit(xtr, ttr); err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	sec := (cpu() - c0).Seconds()
	p, err := c.ProbModerated(xte)
	if err != nil {
		log.Fatal(err)
	}
	pp, _ := c.ProbPlugin(xte)
	var errs int
	var brier, brierP float64
	for i, v := range p {
		if (v > 0.5) != (tte[i] == 1) {
			errs++
		}
		brier += (v - tte[i]) * (v - tte[i])
		if *verbose {
			fmt.Printf("  p %.4f t %g\n", v, tte[i])
		}
		brierP += (pp[i] - tte[i]) * (pp[i] - tte[i])
	}
	n := float64(len(p))
	fmt.Printf("%-10s error %.2f%% (%d)  Brier %.4f (plug-in %.4f)  cpu %.1fs  %s\n", name, 100*float64(errs)/n, errs, brier/n, brierP/n, sec, describe(c))
}

func main() {
	only := flag.String("only", "friedman,diabetes,breast,digits38,sinc,ripley", "comma-separated sets")
	flag.Parse()
	for _, set := range strings.Split(*only, ",") {
		switch set {
		case "friedman", "friedman300", "friedman5k":
			n, nt := 1000, 1000
			if set == "friedman300" {
				n = 300
			}
			if set == "friedman5k" {
				nt = 5000 // issue 47's test set
			}
			tr, err := datasets.Friedman1(n, 10, 1, 1)
			if err != nil {
				log.Fatal(err)
			}
			te, _ := datasets.Friedman1(nt, 10, 0, 2)
			regress(set, tr.X, tr.T, te.X, te.T, 1)
		case "diabetes":
			xtr, ttr, xte, tte := realSplit(set)
			regress(set, xtr, ttr, xte, tte, 0)
		case "breast", "digits38":
			xtr, ttr, xte, tte := realSplit(set)
			classify(set, xtr, ttr, xte, tte)
		case "sinc":
			sets, err := datasets.SincSets(100)
			if err != nil {
				log.Fatal(err)
			}
			xs := make([]float64, 1000)
			truth := make([]float64, len(xs))
			for i := range xs {
				xs[i] = -10 + 20*(float64(i)+0.5)/float64(len(xs))
				truth[i] = datasets.SincTrue(xs[i])
			}
			xt := mat.NewDense(len(xs), 1, xs)
			var se, cov, tcov, sec float64
			var rvs int
			for _, s := range sets {
				r := regressor(s.X)
				r.NoAugment = !*augment
				c0 := cpu()
				if err := r.Fit(s.X, s.T); err != nil {
					log.Fatal(err)
				}
				sec += (cpu() - c0).Seconds()
				m, v, _ := r.Predict(xt)
				var e2 float64
				var in int
				for i := range m {
					e2 += (m[i] - truth[i]) * (m[i] - truth[i])
					if math.Abs(m[i]-truth[i]) <= 2*math.Sqrt(v[i]) {
						in++
					}
				}
				se += math.Sqrt(e2 / float64(len(m)))
				cov += float64(in) / float64(len(m))
				tcov += targetCoverage(m, v, truth, 0.1)
				rvs += len(r.RelevanceVectors())
			}
			k := float64(len(sets))
			fmt.Printf("%-10s mean RMSE %.4f  coverage of f %.3f  of targets %.3f  %.1f RVs  cpu %.1fs (25 sets)\n", set, se/k, cov/k, tcov/k, float64(rvs)/k, sec)
		case "ripley":
			tr, te, err := datasets.LoadRipley()
			if err != nil {
				log.Fatal(err)
			}
			classify(set, tr.X, tr.T, te.X, te.T)
		default:
			log.Fatalf("unknown set %q", set)
		}
	}
}
