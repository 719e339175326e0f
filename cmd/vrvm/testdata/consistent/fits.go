// Fits prints the complete fitted state of a regression fit and of a
// classification fit with every digit. TestConsistent runs it compiled and
// interpreted and requires the two outputs to be identical.
package main

import (
	"fmt"
	"log"
	"math"
	"strconv"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

func main() {
	regression()
	classification()
}

// posterior is the accessors of the posterior every estimator has beside
// those of vrvm.Estimator.
type posterior interface {
	BoundTrace() []float64
	Mean() []float64
	Alpha() []float64
	Covariance() *mat.SymDense
}

// printFit prints the state every estimator has, read through the
// vrvm.Estimator interface and, after a type switch, the program's own
// posterior interface: the interpreted program calls the compiled methods
// through them.
func printFit(m vrvm.Estimator) {
	fmt.Println(m.Task(), "status", m.Status(), "iterations", m.Iterations())
	fmt.Println("lower bound", g(m.LowerBound()))
	// The posterior's accessors are the concrete estimator's.
	var p posterior
	switch m := m.(type) {
	case *vrvm.Regressor:
		p = m
	case *vrvm.Classifier:
		p = m
	}
	fmt.Println("trace", gs(p.BoundTrace()))
	fmt.Println("bias", m.HasBias(), "active", m.ActiveSet(), "relevance", m.RelevanceVectors())
	fmt.Println("mean", gs(p.Mean()))
	fmt.Println("alpha", gs(p.Alpha()))
	cov := p.Covariance()
	for i := 0; i < cov.SymmetricDim(); i++ {
		fmt.Println("covariance", i, gs(mat.Row(nil, i, cov)))
	}
}

func regression() {
	data, err := datasets.Sinc(80, 0.2, 7)
	if err != nil {
		log.Fatal(err)
	}
	// Some arithmetic in the program itself: rescale the inputs to unit
	// standard deviation and centre the targets.
	x := mat.DenseCopyOf(data.X)
	col := mat.Col(nil, 0, x)
	sd := stat.StdDev(col, nil)
	floats.Scale(1/sd, col)
	x.SetCol(0, col)
	t := append([]float64(nil), data.T...)
	mt := stat.Mean(t, nil)
	floats.AddConst(-mt, t)
	fmt.Println("sd", g(sd), "mean", g(mt))

	var monitored []float64
	r := &vrvm.Regressor{
		Kernel: vrvm.Gaussian{Width: 3 / sd},
		Monitor: func(p vrvm.Progress) bool {
			monitored = append(monitored, p.Bound)
			return false
		},
	}
	if err := r.Fit(x, t); err != nil {
		log.Fatal(err)
	}
	printFit(r)
	trace := r.BoundTrace()
	fmt.Println("trace length", len(trace), "monitored", len(monitored))
	same := len(monitored) == len(trace)-1
	for i := 0; same && i < len(monitored); i++ {
		same = monitored[i] == trace[i+1]
	}
	fmt.Println("monitor saw the trace", same)
	c, d := r.TauPosterior()
	fmt.Println("tau", g(c/d), "noise", g(r.NoiseSD()))
	fmt.Println("tau posterior", g(c), g(d))
	fmt.Println("inputs", gs(mat.Col(nil, 0, r.Inputs())))

	orig := []float64{-7.5, -5, -2.5, 0, 2.5, 5, 7.5}
	test := mat.NewDense(len(orig), 1, nil)
	for i, v := range orig {
		test.Set(i, 0, v/sd)
	}
	mean, variance, err := r.Predict(test)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("predict mean", gs(mean))
	fmt.Println("predict variance", gs(variance))
	lmean, lvar, err := r.Latent(test)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("latent mean", gs(lmean))
	fmt.Println("latent variance", gs(lvar))
	var rmse float64
	for i := range mean {
		e := mean[i] + mt - datasets.SincTrue(orig[i])
		rmse += e * e
	}
	fmt.Println("rmse", g(math.Sqrt(rmse/float64(len(mean)))))

	// Errors reach the program as values of the library's types.
	err = (&vrvm.Regressor{}).Fit(mat.NewDense(2, 1, []float64{1, math.NaN()}), []float64{1, 2})
	var nf *vrvm.NonFiniteError
	fmt.Printf("NaN input: %v (NonFiniteError %t)\n", err, errorsAs(err, &nf))
}

func classification() {
	train, err := datasets.Ripley(120, 3)
	if err != nil {
		log.Fatal(err)
	}
	test, err := datasets.Ripley(200, 4)
	if err != nil {
		log.Fatal(err)
	}
	c := &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 0.5}, MaxIter: 3000}
	if err := c.Fit(train.X, train.T); err != nil {
		log.Fatal(err)
	}
	printFit(c)
	fmt.Println("xi", gs(c.Xi()))

	am, av, err := c.Latent(test.X)
	if err != nil {
		log.Fatal(err)
	}
	plugin, err := c.ProbPlugin(test.X)
	if err != nil {
		log.Fatal(err)
	}
	moderated, err := c.ProbModerated(test.X)
	if err != nil {
		log.Fatal(err)
	}
	labels, err := c.Predict(test.X)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("activation mean", gs(am))
	fmt.Println("activation variance", gs(av))
	fmt.Println("plug-in", gs(plugin))
	fmt.Println("moderated", gs(moderated))
	wrong := 0
	for i, l := range labels {
		if l != test.T[i] {
			wrong++
		}
	}
	fmt.Println("labels", gs(labels))
	fmt.Println("test errors", wrong, "of", len(labels))

	// Labels outside {0, 1} are an error of the library's type.
	err = (&vrvm.Classifier{}).Fit(mat.NewDense(2, 1, []float64{1, 2}), []float64{0, 2})
	_, isLabel := err.(*vrvm.LabelError)
	fmt.Printf("bad label: %v (LabelError %t)\n", err, isLabel)
}

func errorsAs(err error, target **vrvm.NonFiniteError) bool {
	e, ok := err.(*vrvm.NonFiniteError)
	if ok {
		*target = e
	}
	return ok
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func gs(x []float64) string {
	s := ""
	for i, v := range x {
		if i > 0 {
			s += " "
		}
		s += g(v)
	}
	return s
}
