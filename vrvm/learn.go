package vrvm

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
	"github.com/vrvm/vrvm/vrvm/internal/sequential"
)

// Learning the kernel's parameters by the full-model bound (docs/design.md,
// "Learning the kernel", (K1)–(K8)). The solver is a black box: each fit
// maximises L over Q at fixed kernel parameters θ; between fits u = ln θ
// takes a step along the gradient of L at the fitted Q, which by the
// envelope theorem is the gradient of V(θ) = max_Q L(Q, θ).

// KernelLearning holds the settings of kernel learning (LearnKernel). Zero
// fields mean the defaults.
type KernelLearning struct {
	// MaxRefits limits the number of solver fits; 0 means 8 (12 for
	// ARDGaussian). Learning
	// also stops earlier once every step on ln θ is below 0.02 (see (K7)).
	MaxRefits int
	// MaxRows limits the rows learning fits: with more training rows,
	// the kernel is learned on MaxRows of them spread evenly through the
	// training set, and the model is then fitted on every row at the
	// learned kernel. 0 means 500; a negative value means
	// every row.
	MaxRows int
	// ScaleShape and ScaleRate, if both positive, place a Gamma
	// hyperprior Γ(θ | ScaleShape, ScaleRate) on every width or length
	// scale θ (K8); zero values mean none (a flat prior on ln θ).
	ScaleShape, ScaleRate float64
	// ScaleSpread, if positive, places a Gaussian prior
	// N(ln ℓₖ | ln ℓ̄, ScaleSpread²) on the logarithm of every ARD length
	// scale ℓₖ around their common scale ℓ̄, which is learned with them
	// (K11); zero means none (each ℓₖ on its own). It has no effect on a
	// single width.
	ScaleSpread float64
	// ByBound learns a Regressor's kernel by the full-model bound, as the
	// classifiers do ((K1)–(K8); docs/design.md, "Learning the kernel"),
	// instead of by the dense model's evidence (docs/kernel-learning.md).
	// The classifiers always learn by the bound.
	ByBound bool
}

// defaultLearnRefits is the default of KernelLearning.MaxRefits. Learning
// also stops earlier once every step on ln θ is below 0.02 (see (K7)).
const defaultLearnRefits = 8

// defaultARDRefits is the default of KernelLearning.MaxRefits for
// ARDGaussian, whose d length scales take more steps than one width.
const defaultARDRefits = 12

// orLearned returns k, or for a nil k the name of the default of
// Regressor and Classifier, a learned Gaussian width.
func orLearned(k Kernel) Kernel {
	if k == nil {
		return learnedWidth{}
	}
	return k
}

// defaultLearnRows is the default of KernelLearning.MaxRows.
const defaultLearnRows = 500

// learnColdEvery: learning refits from an empty model only on every
// learnColdEvery-th refit, and from the best fit's active set on every
// one (docs/design.md, after (K7)): it halves the cost of learning and
// leaves the final V within a nat on the measured sets (docs/benchmarks.md,
// "Measurements behind choices in the code").
const learnColdEvery = 2

// spread returns m row indices spread evenly through 0 … n−1
// (design.Spread).
func spread(n, m int) []int { return design.Spread(n, m) }

// learnRows returns x and t or, with more than max > 0 rows, max of them
// spread evenly through x: the rows the kernel is learned or chosen on.
func learnRows(x mat.Matrix, t []float64, max int) (mat.Matrix, []float64) {
	if n, _ := x.Dims(); max > 0 && n > max {
		rows := spread(n, max)
		return selectRows(mat.DenseCopyOf(x), rows), selectVec(t, rows)
	}
	return x, t
}

// MedianDistance returns the median Euclidean distance between distinct
// rows of x (over at most 400 rows spread evenly through x), the scale
// from which kernel learning starts a width or length scale left at zero.
// It returns 0 for fewer than two rows or if every such distance is 0.
func MedianDistance(x mat.Matrix) float64 {
	rows := rowsOf(x)
	const most = 400
	if len(rows) > most {
		sub := make([][]float64, most)
		for i := range sub {
			sub[i] = rows[i*len(rows)/most]
		}
		rows = sub
	}
	var d []float64
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			var s float64
			for k, v := range rows[i] {
				e := v - rows[j][k]
				s += e * e
			}
			if s > 0 {
				d = append(d, math.Sqrt(s))
			}
		}
	}
	if len(d) == 0 {
		return 0
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

// startKernel returns the kernel learning starts from: k, or for a
// built-in kernel whose scales are unset (a zero Gaussian width, nil
// ARDGaussian length scales) k at the median pairwise distance of x; a
// nil k means a Gaussian. A kernel that does not implement Learnable
// cannot be learned. For the implicit default kernel (a nil Kernel
// without LearnKernel) on inputs whose rows are all equal it returns nil
// and no error: every width gives the same, constant, kernel functions,
// so there is nothing to learn.
func startKernel(k Kernel, x mat.Matrix, implicit bool) (Learnable, error) {
	if k == nil {
		k = Gaussian{}
	}
	l, ok := k.(Learnable)
	if !ok {
		return nil, &OptionError{Field: "LearnKernel", Reason: fmt.Sprintf("kernel %s cannot be learned: use Gaussian, ARDGaussian or a kernel that implements Learnable", kernelString(k))}
	}
	if u, ok := k.(interface {
		unset() bool
		atScale(m float64, d int) Learnable
	}); ok && u.unset() {
		_, d := x.Dims()
		m := MedianDistance(x)
		if !(m > 0) || math.IsInf(m*m, 0) {
			if implicit && m == 0 {
				return nil, nil
			}
			return u.atScale(m, d), &OptionError{Field: "LearnKernel", Value: m, Reason: "the inputs have no usable spread to start a width from (all rows equal, or distances overflow); set a starting width"}
		}
		return u.atScale(m, d), nil
	}
	if o, ok := ownKernel(l).(Learnable); ok {
		return o, nil
	}
	return l, nil
}

// scalePrior returns ln p(θ) + ln|dθ/du| for the Gamma hyperprior of
// (K8) on every θₖ = e^(uₖ) plus the hierarchical prior of (K11), up to
// a constant, and adds its gradient to grad (if not nil).
func (o KernelLearning) scalePrior(u, grad []float64) float64 {
	lp := o.spreadPrior(u, grad)
	if !(o.ScaleShape > 0 && o.ScaleRate > 0) {
		return lp
	}
	for i, v := range u {
		e := math.Exp(v)
		lp += o.ScaleShape*v - o.ScaleRate*e // (K8)
		if grad != nil {
			grad[i] += o.ScaleShape - o.ScaleRate*e
		}
	}
	return lp
}

// spreadPrior returns the log of the hierarchical prior of (K11) on the
// log length scales u, N(uₖ | ū, s²) with s = ScaleSpread, at the common
// ū that maximises it, the mean of u, up to a constant, and adds its
// gradient to grad (if not nil). ū is profiled out: ∂/∂ū of the prior is
// zero at the mean, so the gradient is that at ū held.
func (o KernelLearning) spreadPrior(u, grad []float64) float64 {
	if !(o.ScaleSpread > 0) || len(u) < 2 {
		return 0
	}
	var mean float64
	for _, v := range u {
		mean += v
	}
	mean /= float64(len(u))
	s2 := o.ScaleSpread * o.ScaleSpread
	var lp float64
	for i, v := range u {
		e := v - mean
		lp -= e * e / (2 * s2) // (K11)
		if grad != nil {
			grad[i] -= e / s2
		}
	}
	return lp
}

func (o KernelLearning) resolve(k Learnable) (KernelLearning, error) {
	def := defaultLearnRefits
	if _, ard := k.(perInput); ard {
		def = defaultARDRefits
	}
	if err := count("Learning.MaxRefits", &o.MaxRefits, def); err != nil {
		return o, err
	}
	if o.MaxRows == 0 {
		o.MaxRows = defaultLearnRows
	}
	names := [...]string{"Learning.ScaleShape", "Learning.ScaleRate", "Learning.ScaleSpread"}
	for i, v := range [...]float64{o.ScaleShape, o.ScaleRate, o.ScaleSpread} {
		// A zero stays zero: no hyperprior.
		if err := positive(names[i], &v, 0, "must be non-negative and finite (0 means no hyperprior)"); err != nil {
			return o, err
		}
	}
	return o, nil
}

// learnResult is the best fit kernel learning reached.
type learnResult struct {
	prob   *problem
	sol    *solution
	kernel Learnable
	trace  []float64 // full-model bound + ln p(θ) after each refit
}

// learnFit is one solver fit of kernel learning at fixed kernel
// parameters.
type learnFit interface {
	// full returns the full-model bound the fit reached.
	full() float64
	// halted reports whether the Monitor stopped the fit.
	halted() bool
	// abandoned reports whether learning stopped the fit (learnBudget),
	// or the fit was stopped as crowded; full is then the bound its
	// trace had reached.
	abandoned() bool
	// crowded reports whether the fit was stopped because its effective
	// number of parameters passed the target's limit (C1).
	crowded() bool
	// iters returns the fit's number of iterations.
	iters() int
	// gradient sets g to ∂L/∂u at the fit's Q held fixed, with kernel k
	// (K5)–(K6).
	gradient(k Learnable, g []float64)
}

// learnTarget is the model whose kernel learnWith learns: the binary
// models (binaryTarget) and MultiClassifier (mcTarget).
type learnTarget interface {
	// check reports whether kernel k can be fitted (its scale is usable).
	check(k Learnable) error
	// fit fits the model with kernel k: from an empty model if from is
	// nil, else from the active set and likelihood factor of from, a fit
	// of the same target (only if warmable). If abandon is not nil, the
	// fit is stopped, and marked abandoned, after the first iteration
	// for which it returns true.
	fit(ctx context.Context, k Learnable, from learnFit, abandon func(Progress) bool) (learnFit, error)
	// warmable reports whether fit can start from another fit.
	warmable() bool
	// unlimit lifts the limit on the effective number of parameters
	// (C1) from the fits that follow.
	unlimit()
}

// Steps on u = ln θ (K7): each uₖ moves by its own step in the direction
// of the sign of ∂V/∂uₖ (Rprop; Riedmiller & Braun 1993), which needs no
// line search on V, whose values the solver reaches only up to its local
// maxima: a step grows by rpropUp while the sign persists and shrinks by
// rpropDown when it flips.
// A fit whose V falls below the best so far is undone, as in iRprop+:
// u returns to the best fit's, every step shrinks by rpropDown, and the
// next step leaves from there along the best fit's gradient.
const (
	rpropStart = 0.5  // first step on each ln θ: a factor e^½ ≈ 1.65
	rpropUp    = 2    // growth while the gradient keeps its sign
	rpropDown  = 0.5  // shrinkage when it flips, or when V falls
	rpropMax   = 4    // largest step: a factor e⁴ ≈ 55
	rpropMin   = 0.02 // learning stops when every step is below this
	maxLogMove = 12   // no ln θ moves further than this from its start
	offScale   = 10   // an ARD ℓₖ beyond this many sd of input k is tried at the upper bound
	offSlack   = 1    // switching inputs off is kept unless V falls by this many nats
)

// abandonment records whether learning stopped a fit (learnBudget), and
// the bound its trace had reached then.
type abandonment struct {
	done  bool
	bound float64
}

// abandonWhen makes s's Monitor also stop the fit after the first
// iteration for which abandon (if not nil) returns true, and returns the
// record of that. The user's Monitor is called first, and its stop is
// not an abandonment.
func (s *settings) abandonWhen(abandon func(Progress) bool) *abandonment {
	ab := &abandonment{}
	if abandon == nil {
		return ab
	}
	user := s.monitor
	s.monitor = func(p Progress) bool {
		if user != nil && user(p) {
			return true
		}
		if abandon(p) {
			ab.done, ab.bound = true, p.Bound
			return true
		}
		return false
	}
	return ab
}

// learnBudget returns the test that abandons a refit of kernel learning
// (docs/design.md, after (K7)): after sequential.SecondBudget(iters) iterations, iters the
// most any finished fit took, a fit whose trace is not above floor (the
// bound it must beat to be kept) is stopped. The trace is a lower bound on
// the fit's full-model bound and never decreases (S4), but crawls near a
// far optimum; such a refit is scored by the bound it has reached, below
// the best, and its step is rejected.
func learnBudget(iters int, floor float64) func(Progress) bool {
	budget := sequential.SecondBudget(iters)
	return func(p Progress) bool { return p.Iteration >= budget && !(p.Bound > floor) }
}

// columnSDs returns the (population) standard deviation of every column
// of x.
func columnSDs(x mat.Matrix) []float64 {
	_, d := x.Dims()
	sd := make([]float64, d)
	for j := range d {
		_, sd[j] = stat.PopMeanStdDev(mat.Col(nil, j, x), nil)
	}
	return sd
}

// learnWith alternates fits of target with steps on u = ln θ (K7) along
// the gradient of V(θ) = max_Q L(Q, θ) + ln p(θ), which at the converged
// Q of each fit is ∂L/∂u at that fixed Q (K5)–(K6), starting from k0 (x
// are the training inputs). It returns the fit with the largest V, its
// kernel, and V after each fit.
func learnWith(ctx context.Context, target learnTarget, x mat.Matrix, k0 Learnable, o KernelLearning) (learnFit, Learnable, []float64, error) {
	var best learnFit
	var bestK Learnable
	var bestV float64
	var trace []float64
	r := newRprop(k0.LogParams())
	k := k0
	longest := 0 // the most iterations a finished fit took
	widened := 0 // doublings of the start for a crowded first fit (C1)
	for refit := 0; refit < o.MaxRefits; refit++ {
		if err := target.check(k); err != nil {
			if best != nil {
				break
			}
			return nil, nil, nil, err
		}
		var abandon func(Progress) bool
		if best != nil {
			floor := bestV - o.scalePrior(r.u, nil)
			if r.offTrial {
				floor -= offSlack
			}
			abandon = learnBudget(longest, floor)
		}
		fit, err := learnRefit(ctx, target, k, best, refit, abandon)
		if fit == nil {
			if best != nil {
				return best, bestK, trace, err
			}
			return nil, nil, nil, err
		}
		if fit.crowded() && best == nil && err == nil {
			// (C1) The first fit is crowded: start from twice the
			// scales, up to widthMaxUp times, then without the limit.
			if widened < widthMaxUp {
				widened++
				for i := range r.u {
					r.u0[i] += math.Ln2
					r.u[i] = r.u0[i]
				}
			} else {
				target.unlimit()
			}
			k = k.WithLogParams(r.u)
			refit--
			continue
		}
		v := fit.full() + o.scalePrior(r.u, nil)
		trace = append(trace, v)
		if err != nil || fit.halted() {
			// Stopped or cancelled: keep what this fit reached.
			return fit, k, trace, err
		}
		if !fit.abandoned() {
			longest = max(longest, fit.iters())
		}
		// A fit is kept if it raises V, or, switching inputs off (the
		// simpler model), if it lowers V by less than offSlack.
		better := !fit.crowded() && (best == nil || v > bestV || r.offTrial && v > bestV-offSlack)
		if refit == o.MaxRefits-1 && !better {
			break
		}
		var g []float64
		if better {
			best, bestK, bestV = fit, k, v
			if refit == o.MaxRefits-1 {
				break
			}
			g = r.ascend(fit, k, o)
		} else if r.offTrial {
			// Switching the inputs off lowered V: keep them on and go on
			// from the best fit with the steps unchanged.
			g = r.gBest
		} else {
			g = r.retreat(fit, k, o)
		}
		if !r.move(k, g, x) {
			break
		}
		k = k.WithLogParams(r.u)
		if err := stopped(ctx, refit); err != nil {
			return best, bestK, trace, err
		}
	}
	return best, bestK, trace, nil
}

// learnRefit fits target with kernel k: from an empty model (every
// learnColdEvery refits, or without a best fit to start from), from the
// best fit (when target is warmable), or both, keeping the better of the
// two: a fit from an empty model can end in another local maximum, whose
// V jumps with θ; the warm fit's moves with θ. A crowded fit (C1), (C3)
// is not kept, so it loses to one that is not, whatever its V. A nil fit
// ends learning with err.
func learnRefit(ctx context.Context, target learnTarget, k Learnable, best learnFit, refit int, abandon func(Progress) bool) (learnFit, error) {
	warm := best != nil && target.warmable()
	var fit learnFit
	var err error
	if !warm || refit%learnColdEvery == 0 {
		fit, err = target.fit(ctx, k, nil, abandon)
		if fit == nil {
			return nil, err
		}
	}
	if warm && (fit == nil || err == nil && !fit.halted()) {
		fw, errw := target.fit(ctx, k, best, abandon)
		if fit == nil && fw == nil {
			return nil, errw
		}
		if fw != nil && (fit == nil || errw != nil || fw.halted() || fit.crowded() && !fw.crowded() ||
			fw.full() > fit.full() && (!fw.crowded() || fit.crowded())) {
			fit, err = fw, errw
		}
	}
	return fit, err
}

// rprop is the state of learnWith's steps on u = ln θ (K7).
type rprop struct {
	u0, u        []float64 // the start and the current parameters
	uBest, gBest []float64 // the best fit's parameters and gradient
	step, prevG  []float64 // every parameter's step, and the last kept gradient
	sd           []float64 // the inputs' standard deviations
	triedAt      []float64 // ℓₖ at which input k was last tried switched off
	offTrial     bool      // this refit tries inputs switched off, nothing else
}

// newRprop starts the steps from u0 with steps rpropStart.
func newRprop(u0 []float64) *rprop {
	return &rprop{u0: u0, u: append([]float64(nil), u0...), step: constant(len(u0), rpropStart)}
}

// ascend returns the gradient of V at a kept fit, (K5)–(K6) with the
// prior's, and adapts the steps by its signs against the last kept
// gradient's (Rprop).
func (r *rprop) ascend(fit learnFit, k Learnable, o KernelLearning) []float64 {
	g := make([]float64, len(r.u))
	fit.gradient(k, g) // (K5)–(K6)
	o.scalePrior(r.u, g)
	for i, gi := range g {
		if r.prevG != nil {
			switch {
			case gi*r.prevG[i] > 0:
				r.step[i] = math.Min(r.step[i]*rpropUp, rpropMax)
			case gi*r.prevG[i] < 0:
				r.step[i] *= rpropDown // the maximum was passed
			}
		}
	}
	r.uBest, r.gBest, r.prevG = append([]float64(nil), r.u...), g, g
	return g
}

// retreat undoes a step after which V fell: learning leaves the best fit
// again with shorter steps (iRprop+) along the parameters whose gradient
// changed sign at the rejected θ (the step passed their maximum), or
// along every one if none did. An abandoned fit's Q is not at a maximum
// of L: its gradient is not used. It returns the best fit's gradient.
func (r *rprop) retreat(fit learnFit, k Learnable, o KernelLearning) []float64 {
	flipped := false
	if !fit.abandoned() {
		gr := make([]float64, len(r.u))
		fit.gradient(k, gr) // (K5)–(K6)
		o.scalePrior(r.u, gr)
		for i, gi := range gr {
			if gi*r.gBest[i] < 0 {
				r.step[i] *= rpropDown
				flipped = true
			}
		}
	}
	if !flipped {
		for i := range r.step {
			r.step[i] *= rpropDown
		}
	}
	return r.gBest
}

// move sets u to the next parameters to fit, from the best fit's, by
// the steps in the directions of the signs of g (each within maxLogMove
// of its start), or, for an ARD kernel, to the best fit's with inputs
// switched off (offScale). It reports whether u differs from the best
// fit's.
func (r *rprop) move(k Learnable, g []float64, x mat.Matrix) (moved bool) {
	r.offTrial = false
	if _, ard := k.(perInput); ard {
		// An ARD length scale beyond offScale standard deviations of
		// its input hardly changes K, and its gradient still asks for
		// more: try the input switched off, ℓₖ at the upper bound, in
		// a refit of its own from the best fit (judged by V like any
		// step), and again only once ℓₖ has doubled since.
		if r.sd == nil {
			r.sd, r.triedAt = columnSDs(x), make([]float64, len(r.u))
		}
		copy(r.u, r.uBest)
		for i, gi := range r.gBest {
			l := math.Exp(r.uBest[i])
			if gi > 0 && r.sd[i] > 0 && l > offScale*r.sd[i] && l > 2*r.triedAt[i] && r.uBest[i] < r.u0[i]+maxLogMove {
				r.triedAt[i], r.u[i], r.offTrial = l, r.u0[i]+maxLogMove, true
			}
		}
		moved = r.offTrial
	}
	if !r.offTrial {
		for i, gi := range g {
			nu := r.uBest[i]
			off := r.triedAt != nil && r.uBest[i] >= r.u0[i]+maxLogMove // switched off: stays off
			if r.step[i] >= rpropMin && gi != 0 && !off {
				nu = math.Max(r.u0[i]-maxLogMove, math.Min(r.u0[i]+maxLogMove, nu+math.Copysign(r.step[i], gi)))
			}
			if nu != r.uBest[i] {
				moved = true
			}
			r.u[i] = nu
		}
	}
	return moved
}

// copyFactor sets the likelihood factor of dst (Q_τ, or ξ) to that of
// src, a likelihood of the same task and data.
func copyFactor(dst, src likelihood) { dst.SetFactor(src.Factor(nil)) }

// startLearning validates the data and resolves the starting kernel when
// learning is on; it returns nil when it is off. implicit marks the
// default kernel (see startKernel): on inputs whose rows are all equal it
// becomes Gaussian{Width: 1}, not learned.
func startLearning(on, implicit, design bool, o *options, x mat.Matrix, t []float64) (Learnable, error) {
	if !on {
		return nil, nil
	}
	if design {
		return nil, &OptionError{Field: "LearnKernel", Reason: "FitDesign has no kernel to learn"}
	}
	if err := checkInputs(x, t); err != nil {
		return nil, err
	}
	k0, err := startKernel(o.kernel, x, implicit)
	if err != nil {
		return nil, err
	}
	if k0 == nil {
		o.kernel = Gaussian{Width: 1}
		return nil, nil
	}
	o.kernel = k0
	return k0, nil
}

// FittedKernel returns the kernel of the fitted model: the configured
// kernel, or with LearnKernel the learned one (for example
// ARDGaussian{Scales: …} with the learned length scales); nil for a
// FitDesign model. It is a copy: changing its Scales does not change the
// model.
func (f *fitted) FittedKernel() Kernel {
	if !f.hasPosterior() {
		return nil
	}
	return ownKernel(f.b.kernel)
}

// LearnTrace returns, for a fit with LearnKernel, the full-model bound
// (plus the log hyperprior of the scales, if any) after each solver fit
// of kernel learning, in order (for a refit that learning abandoned, the
// bound its trace had reached); the model kept is the one with the
// largest value, except that an ARD fit with inputs switched off is
// preferred to one within a nat above it, that a crowded fit ((C1), (C3))
// is not kept, and that a classifier's learning that met a crowded fit
// ends with the bound at the narrowest width, where the kernel functions
// are spikes at their own rows, and keeps its first fit unless a fit it
// kept is above that (C4) (docs/design.md, "Learning the kernel"). For
// RVMClassifier with a nil Kernel it holds the bounds of Classifier's
// learning of the width (R7). For Regressor, which learns by the dense
// model's evidence, it holds that evidence at the default width and at
// the learned kernel, in the targets' units (docs/kernel-learning.md
// (E6)). It is nil for a fit without learning.
func (f *fitted) LearnTrace() []float64 { return append([]float64(nil), f.learnTrace...) }

// learnLine is the summary line of kernel learning, or "".
func (f *fitted) learnLine() string {
	if f.widthEvidence != 0 {
		l := fmt.Sprintf("width chosen by the evidence of the dense model, %.4g (W4)", f.widthEvidence)
		if f.widthDoublings > 0 {
			l += fmt.Sprintf(", doubled %d times (W5)", f.widthDoublings)
		}
		return l
	}
	if f.evidenceNote != "" {
		return f.evidenceNote + doublingsNote(f.widthDoublings)
	}
	if f.learnTrace == nil {
		return ""
	}
	if f.estimator == "rvm" {
		return fmt.Sprintf("width learned by Classifier's full-model bound in %d fits (R7)", len(f.learnTrace))
	}
	return fmt.Sprintf("kernel learned by the full-model bound in %d fits", len(f.learnTrace))
}
