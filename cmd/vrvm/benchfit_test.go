package main

// This file is compiled into the tests and, embedded as text, interpreted
// by BenchmarkInterpretedFit: the same source on both sides. It may import
// only packages of the symbol set.

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

// benchFit is a script's work on the sinc problem with n points: prepare
// the data, fit, and predict on a grid. It returns a checksum of the
// results.
func benchFit(n int) float64 {
	data, err := datasets.Sinc(n, 0.1, 1)
	if err != nil {
		panic(err)
	}
	// Standardise the targets in the program itself.
	var mean, ss float64
	for _, t := range data.T {
		mean += t
	}
	mean /= float64(n)
	t := make([]float64, n)
	for i, v := range data.T {
		t[i] = v - mean
		ss += t[i] * t[i]
	}
	sd := math.Sqrt(ss / float64(n))
	for i := range t {
		t[i] /= sd
	}

	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}
	if err := r.Fit(data.X, t); err != nil {
		panic(err)
	}
	grid := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		grid.Set(i, 0, -10+20*float64(i)/float64(n-1))
	}
	pred, _, err := r.Predict(grid)
	if err != nil {
		panic(err)
	}
	sum := r.LowerBound()
	for _, p := range pred {
		sum += p*sd + mean
	}
	return sum
}

// scriptGaussian is vrvm.Gaussian written in the script.
type scriptGaussian struct{ width float64 }

func (k scriptGaussian) Eval(x, y []float64) float64 {
	var d2 float64
	for i, xi := range x {
		d := xi - y[i]
		d2 += d * d
	}
	return math.Exp(-d2 / (k.width * k.width))
}

// benchKernelFit fits the sinc problem with n points with the library's
// Gaussian kernel or, if script is true, with scriptGaussian.
func benchKernelFit(n int, script bool) float64 {
	data, err := datasets.Sinc(n, 0.1, 1)
	if err != nil {
		panic(err)
	}
	r := &vrvm.Regressor{}
	if script {
		r.Kernel = scriptGaussian{width: 3}
	} else {
		r.Kernel = vrvm.Gaussian{Width: 3}
	}
	if err := r.Fit(data.X, data.T); err != nil {
		panic(err)
	}
	return r.LowerBound()
}
