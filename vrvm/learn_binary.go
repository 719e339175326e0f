package vrvm

import (
	"context"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// binaryTarget is the learnTarget of Regressor and Classifier.
type binaryTarget struct {
	s      settings
	b      basis
	x      mat.Matrix
	newLik func() likelihood
	// limit, if positive, is the largest effective number of parameters
	// γ of a fit (C1): regression's widthCrowded times the rows.
	limit float64
	// labels, if not nil, are a classifier's labels, whose fits are
	// limited by (C3): the effective number of parameters on the rows of
	// either class at most widthCrowded times that class's rows.
	labels []float64
	// Under (C3): whether a fit was crowded, and the first fit that was
	// not, the start of learning, with its kernel (C4).
	sawCrowded bool
	start      learnFit
	startK     Learnable
}

// binaryFit is a fit of binaryTarget.
type binaryFit struct {
	p    *problem
	sol  *solution
	ab   *abandonment
	over bool // stopped by the limit on γ (C1), or crowded in a class (C3)
}

func (f *binaryFit) full() float64 {
	if f.ab.done {
		return f.ab.bound
	}
	return f.sol.full
}

func (f *binaryFit) halted() bool { return f.sol.status == Stopped && !f.ab.done && !f.over }

func (f *binaryFit) abandoned() bool { return f.ab.done || f.over }

func (f *binaryFit) crowded() bool { return f.over }

func (f *binaryFit) iters() int { return f.sol.iters }

func (f *binaryFit) gradient(k Learnable, g []float64) {
	newFixedQ(f.p, f.sol).eval(k, g) // (K5)–(K6)
}

func (t *binaryTarget) check(k Learnable) error {
	bb := t.b
	bb.kernel = k
	return bb.checkScale()
}

func (t *binaryTarget) warmable() bool { return t.s.prune && t.s.method == (Sequential{}) }

func (t *binaryTarget) unlimit() { t.limit, t.labels = 0, nil }

func (t *binaryTarget) fit(ctx context.Context, k Learnable, from learnFit, abandon func(Progress) bool) (learnFit, error) {
	bb := t.b
	bb.kernel = k
	p := &problem{basis: bb, x: t.x, lik: t.newLik(), set: t.s}
	p.set.kernel = k
	p.set.gammaLimit = t.limit
	ab := p.set.abandonWhen(abandon)
	if from != nil {
		// Refit from the best fit's active set and likelihood factor.
		bf := from.(*binaryFit)
		p.warm = &sequential.Warm{Cols: bf.sol.cols, Alpha: bf.sol.alpha}
		copyFactor(p.lik, bf.p.lik)
	}
	sol, err := t.s.method.algorithm().fit(ctx, p)
	if sol == nil {
		return nil, err
	}
	over := t.limit > 0 && sol.status == Stopped && !ab.done && effectiveParameters(sol) > t.limit
	if t.labels != nil && err == nil && !ab.done && sol.status != Stopped {
		over = classCrowded(p, sol, t.labels) // (C3)
		t.sawCrowded = t.sawCrowded || over
	}
	f := &binaryFit{p: p, sol: sol, ab: ab, over: over}
	if t.labels != nil && t.start == nil && err == nil && !over && !ab.done && sol.status != Stopped {
		t.start, t.startK = f, k
	}
	return f, err
}

// memorising fits the model, without (C3), at the kernel k with every
// scale divided by e^maxLogMove, the narrowest learning reaches, where
// the kernel matrix is the identity to rounding for any inputs without
// repeated rows: every kernel function is a spike at its own row, and a
// fit memorises the labels it can (C4).
func (t *binaryTarget) memorising(ctx context.Context, k Learnable) (learnFit, Learnable, error) {
	u := k.LogParams()
	for i := range u {
		u[i] -= maxLogMove
	}
	labels := t.labels
	t.labels = nil
	defer func() { t.labels = labels }()
	ki := k.WithLogParams(u)
	f, err := t.fit(ctx, ki, nil, nil)
	return f, ki, err
}

// classLeverage returns the effective number of parameters of the fit
// sol of p on the rows of each class of the labels t (0 or 1): the sums
// over those rows of the leverages hₙ = Bₙφₙᵀ Σ φₙ over the active
// functions, whose sum over every row is γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) = tr(ΣΦᵀBΦ)
// (C3). It returns zeros if Σ or the design cannot be had.
func classLeverage(p *problem, sol *solution, t []float64) [2]float64 {
	var g [2]float64
	if sol.sigma == nil && sol.sigmaOf != nil {
		sol.sigma = sol.sigmaOf()
	}
	if sol.sigma == nil || len(sol.cols) == 0 {
		return g
	}
	phi, err := p.basis.design(p.x, sol.cols)
	if err != nil {
		return g
	}
	beta, uni := p.lik.Weights()
	var ps mat.Dense // ΦΣ
	mul(&ps, phi, sol.sigma)
	for i, c := range t {
		b := uni
		if beta != nil {
			b = beta[i]
		}
		h := b * floats.Dot(phi.RawRowView(i), ps.RawRowView(i))
		if c == 1 {
			g[1] += h
		} else {
			g[0] += h
		}
	}
	return g
}

// classCrowded reports whether the fit sol of a classifier's problem p,
// with labels t, is crowded in a class (C3): its effective number of
// parameters on the rows of class c passes widthCrowded times the Nc
// rows of that class, more than one parameter for every two labels, so
// that the fit spends functions on memorising those labels, each a spike
// at its own row, rather than on how the class varies with the inputs.
func classCrowded(p *problem, sol *solution, t []float64) bool {
	var n [2]float64
	for _, c := range t {
		if c == 1 {
			n[1]++
		} else {
			n[0]++
		}
	}
	g := classLeverage(p, sol, t)
	return g[0] > widthCrowded*n[0] || g[1] > widthCrowded*n[1]
}

// learnKernel is learnWith for Regressor and Classifier: newLik makes a
// fresh likelihood for each fit.
func learnKernel(ctx context.Context, s settings, b basis, x mat.Matrix, k0 Learnable, o KernelLearning, newLik func() likelihood) (*learnResult, error) {
	tg := &binaryTarget{s: s, b: b, x: x, newLik: newLik}
	if l := newLik(); !s.noCrowdLimit && s.prune && s.method == (Sequential{}) {
		tg.limit = widthCrowded * float64(l.GammaRows()) // (C1)
		tg.labels = l.Labels()                           // (C3)
	}
	best, k, trace, err := learnWith(ctx, tg, x, k0, o)
	if best == nil {
		return nil, err
	}
	if tg.sawCrowded && tg.start != nil && err == nil {
		// (C4) Learning met a fit crowded in a class (C3): does the
		// bound prefer any fit it kept to memorising the labels, the
		// limit of narrow widths where every kernel function is a spike
		// at its own row? If not, it cannot tell the widths apart, and
		// learning keeps its start. A memorising fit that failed or was
		// stopped leaves the best fit; a cancelled context is reported.
		fi, ki, errI := tg.memorising(ctx, tg.startK)
		if fi != nil && errI == nil && !fi.halted() {
			vi := fi.full() + o.scalePrior(ki.LogParams(), nil)
			trace = append(trace, vi)
			if !(best.full()+o.scalePrior(k.LogParams(), nil) > vi) {
				best, k = tg.start, tg.startK
			}
		}
		if errI != nil && ctx != nil && ctx.Err() != nil {
			err = errI
		}
	}
	bf := best.(*binaryFit)
	return &learnResult{prob: bf.p, sol: bf.sol, kernel: k, trace: trace}, err
}
