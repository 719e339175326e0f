package vrvm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/vrvm/vrvm/vrvm/internal/kernlearn"
	"gonum.org/v1/gonum/mat"
)

// Kernel learning of a regression by the evidence of the dense model,
// (E1)–(E6), is computed by package kernlearn (docs/kernel-learning.md);
// this file holds the Regressor's use of it and the binary Classifier's
// guard (E7).

// evidenceRowsLimit is the most rows learning by the evidence accepts
// (Learning.MaxRows −1 on more rows is an error): one evaluation of (E2)
// costs O(m³).
const evidenceRowsLimit = 2000

// evidenceARDRows is the number of rows ARD length scales are learned on
// when Learning.MaxRows is 0: (E5) costs O(m³) per evaluation, and 300
// rows keep learning within a few fits' cost (docs/benchmarks.md).
const evidenceARDRows = 300

// evidenceFit is the result of learning a kernel by (E2).
type evidenceFit struct {
	kernel    Learnable
	evidence  float64 // E + ln p(u) at kernel, in the targets' units
	base      float64 // the same at (W4)'s width
	penalised float64 // evidence − (E6)'s penalty
	kept      bool    // (E6): the learned kernel is kept over (W4)'s
	calls     int     // evaluations of (E2)
}

// errNotPD marks an evaluation of (E2) where C was not positive definite
// to working precision.
var errNotPD = &OptionError{Field: "LearnKernel", Reason: "the covariance of the dense model is not positive definite"}

// learnByEvidence learns the kernel of a regression on the rows x, t by
// maximising (E2) + (E4) with the hyperpriors of o (kernlearn.Learn): one
// Gaussian width if ard is false, else a length scale per input, from
// the width r of (W4) (and for ARD, if restarts, from 2r and r/2 (E5)),
// and from the user's start, if not nil. It returns nil and no error
// when the targets do not vary.
func learnByEvidence(ctx context.Context, x mat.Matrix, t []float64, ard bool, r float64, start Learnable, o KernelLearning, restarts bool) (*evidenceFit, error) {
	var s []float64
	if start != nil {
		s = kernelScales(start)
	}
	res, err := kernlearn.Learn(ctx, rowsOf(x), t, ard, r, s, o.scalePrior, restarts, gaussianAt)
	if errors.Is(err, kernlearn.ErrNotPD) {
		return nil, errNotPD
	}
	if err != nil || res == nil {
		return nil, err
	}
	var k Learnable = Gaussian{Width: res.Scales[0]}
	if ard {
		k = ARDGaussian{Scales: res.Scales}
	}
	return &evidenceFit{kernel: k, evidence: res.Evidence, base: res.Base, penalised: res.Penalised, kept: res.Kept, calls: res.Calls}, nil
}

// kernelScales returns the width or length scales of k.
func kernelScales(k Learnable) []float64 {
	u := k.LogParams()
	for i, v := range u {
		u[i] = math.Exp(v)
	}
	return u
}

// guardMargin is the margin of the guards (E6), (E7): k − 1 nats for the
// k length scales s below kernlearn's switch-off factor times the single
// width r.
func guardMargin(s []float64, r float64) float64 { return kernlearn.GuardMargin(s, r) }

// fitByEvidence is LearnKernel for Regressor (docs/kernel-learning.md):
// the width, or the ARD length scales, that maximise the dense model's
// evidence with the hyperprior (E2)–(E5), kept over (W4)'s single width
// only if the guard (E6) says so, then one fit of the sparse model at
// that kernel, or at twice its scales while the fit's γ exceeds half the
// rows (W5), as for the default width. o, x, t, v and newLik are as for
// fitVariational.
func (f *fitted) fitByEvidence(ctx context.Context, o options, x mat.Matrix, t []float64, v variational,
	newLik func(settings, []float64) (likelihood, error)) (likelihood, error) {
	given := o.kernel
	k0, err := startLearning(true, false, false, &o, x, t)
	if err != nil {
		return nil, err
	}
	if err := validateKernel(k0); err != nil {
		return nil, err
	}
	if _, d := x.Dims(); checkKernelDim(k0, d) != nil {
		return nil, checkKernelDim(k0, d)
	}
	lo, err := v.learning.resolve(k0)
	if err != nil {
		return nil, err
	}
	_, ard := k0.(ARDGaussian)
	var start Learnable // the user's start, if any: a width or scales given
	if u, ok := given.(interface{ unset() bool }); ok && !u.unset() {
		start = k0
	}
	if n := len(t); (lo.MaxRows < 0 || lo.MaxRows > evidenceRowsLimit) && n > evidenceRowsLimit {
		return nil, &OptionError{Field: "Learning.MaxRows", Value: float64(lo.MaxRows),
			Reason: fmt.Sprintf("learning a regression's kernel by the dense model's evidence on %d rows costs O(N³) an evaluation: set Learning.MaxRows to at most %d", n, evidenceRowsLimit)}
	}
	rows := lo.MaxRows
	if ard && v.learning.MaxRows == 0 {
		rows = evidenceARDRows
	}
	// (W4) on the rows of learning: the start of (E5) and the guard's
	// reference (E6).
	if err := f.defaultWidth(ctx, &o, x, t, KernelLearning{MaxRows: rows}); err != nil {
		return nil, err
	}
	f.widthEvidence = 0
	r := o.kernel.(Gaussian).Width
	xs, ts := learnRows(x, t, rows)
	ef, err := learnByEvidence(ctx, xs, ts, ard, r, start, lo, true)
	if err != nil {
		return nil, fmt.Errorf("vrvm: kernel learning by the dense model's evidence: %w", err)
	}
	o0, doublings := o, f.widthDoublings // (W4)'s width, for (E8)
	n := len(t)
	other := rows != lo.MaxRows && n > min(rows, lo.MaxRows) // (W4) on other rows than learning's
	if err := f.keepEvidence(ctx, &o, x, t, ef, ard, other, lo); err != nil {
		return nil, err
	}
	if ef == nil || !ef.kept || o.ctl.noHeldout {
		return f.fitAt(ctx, o, x, t, v, newLik)
	}
	return f.guardHeldout(ctx, o, o0, x, t, xs, ts, v, newLik, ef, heldoutCase{ard: ard, other: other, lo: lo, doublings: doublings})
}

// heldoutCase holds what (E8) needs of fitByEvidence beyond its
// arguments: ARD or a width, whether (W4) is computed again on other
// rows for the default (keepEvidence), the resolved learning options and
// the doublings (W5) before the fit.
type heldoutCase struct {
	ard, other bool
	lo         KernelLearning
	doublings  int
}

// guardHeldout is the held-out guard (E8) of fitByEvidence once (E6)
// kept the learned kernel ef (o's; o0 holds (W4)'s width on the learning
// rows xs, ts of the rows x, t): it fits the sparse model on xs at both,
// keeps the learned kernel only if its leave-one-out log density there
// is the higher by more than heldoutZ standard errors (looGain.keep), and
// fits the kept kernel on x (or keeps its fit, if xs is x).
func (f *fitted) guardHeldout(ctx context.Context, o, o0 options, x mat.Matrix, t []float64, xs mat.Matrix, ts []float64, v variational,
	newLik func(settings, []float64) (likelihood, error), ef *evidenceFit, c heldoutCase) (likelihood, error) {
	ard, other, lo, doublings := c.ard, c.other, c.lo, c.doublings
	// (E8) on the learning rows: the sparse fits at the learned kernel
	// and at (W4)'s width; the one whose rows held out one at a time are
	// predicted better is kept. On every row, the kept fit is the model.
	all := xs == x
	va := v
	va.augment = v.augment && all
	learned, def := *f, *f
	lik, err := learned.fitAt(ctx, o, xs, ts, va, newLik)
	if err != nil {
		return nil, err
	}
	l, err := learned.regressionLOO(xs, ts, lik)
	if err != nil {
		return nil, err
	}
	def.widthDoublings = doublings
	dn := *ef
	dn.kept = false
	od := o0
	if err := def.keepEvidence(ctx, &od, xs, ts, &dn, ard, false, lo); err != nil {
		return nil, err
	}
	lik0, err := def.fitAt(ctx, od, xs, ts, va, newLik)
	if err != nil {
		return nil, err
	}
	l0, err := def.regressionLOO(xs, ts, lik0)
	if err != nil {
		return nil, err
	}
	g := newLooGain(l, l0)
	head, tail := cutKept(f.evidenceNote)
	if g.keep() {
		f.evidenceNote = head + "; " + g.text() + tail
		if all {
			learned.evidenceNote = f.evidenceNote
			*f = learned
			return lik, nil
		}
		return f.fitAt(ctx, o, x, t, v, newLik)
	}
	note := head + "; " + g.text() + "; kept the width of (W4)"
	if all {
		def.evidenceNote = note
		*f = def
		return lik0, nil
	}
	f.widthDoublings = doublings
	if err := f.keepEvidence(ctx, &o0, x, t, &dn, ard, other, lo); err != nil {
		return nil, err
	}
	f.evidenceNote = note
	return f.fitAt(ctx, o0, x, t, v, newLik)
}

// cutKept splits the summary line of learning by the evidence before its
// last "; kept".
func cutKept(note string) (head, tail string) {
	i := strings.LastIndex(note, "; kept ")
	if i < 0 {
		return note, ""
	}
	return note[:i], note[i:]
}

// fitAt fits the sparse model at o's kernel, doubled while crowded (W5),
// keeping f's learning trace.
func (f *fitted) fitAt(ctx context.Context, o options, x mat.Matrix, t []float64, v variational,
	newLik func(settings, []float64) (likelihood, error)) (likelihood, error) {
	s, b, err := prepare(o, x, t, false)
	if err != nil {
		return nil, err
	}
	lik, err := newLik(s, t)
	if err != nil {
		return nil, err
	}
	trace := f.learnTrace
	p := &problem{basis: b, x: x, lik: lik, set: s}
	l, err := f.fitWidened(ctx, o, x, t, p, v, newLik)
	f.learnTrace = trace
	return l, err
}

// keepEvidence sets o.kernel to the kernel the guard (E6) keeps of the
// learning ef, and records its summary: the learned kernel, or the
// default's, the width of (W4) on lo.MaxRows rows (computed again if
// learning used fewer, other), as ARD scales if ard.
func (f *fitted) keepEvidence(ctx context.Context, o *options, x mat.Matrix, t []float64, ef *evidenceFit, ard, other bool, lo KernelLearning) error {
	if ef == nil {
		f.evidenceNote = "kernel not learned: the targets do not vary; the width of (W4)"
		f.learnTrace = []float64{}
		return nil
	}
	f.learnTrace = []float64{ef.base, ef.evidence}
	f.evidenceNote = ef.note(ard)
	switch {
	case ef.kept:
		o.kernel = ef.kernel
	case ard:
		if other {
			if err := f.defaultWidth(ctx, o, x, t, lo); err != nil {
				return err
			}
			f.widthEvidence = 0
		}
		// (W4)'s width as the ARD kernel asked for: the same functions.
		_, d := x.Dims()
		o.kernel = ARDGaussian{Scales: constant(d, o.kernel.(Gaussian).Width)}
	}
	return nil
}

// note is the summary line of learning by the evidence: the criterion's
// values and which kernel the guard (E6) kept, and why.
func (ef *evidenceFit) note(ard bool) string {
	what := "width"
	if ard {
		what = "length scales"
	}
	if ef.kept {
		return fmt.Sprintf("%s learned by the evidence of the dense model (E2)+(E4): %.6g, above %.6g at the width of (W4)%s; kept %v",
			what, ef.evidence, ef.base, ef.penaltyText(), ef.kernel)
	}
	return fmt.Sprintf("%s learned by the evidence of the dense model (E2)+(E4): %.6g at %v, not above %.6g at the width of (W4)%s; kept the width of (W4)",
		what, ef.evidence, ef.kernel, ef.base, ef.penaltyText())
}

// penaltyText describes (E6)'s penalty, if any.
func (ef *evidenceFit) penaltyText() string {
	if p := ef.evidence - ef.penalised; p > 0 {
		return fmt.Sprintf(" by more than the guard's %.3g nats (E6)", p)
	}
	return ""
}

// doubledKernel returns k with its width or every length scale doubled
// (W5): its doubled method (Gaussian, ARDGaussian), or k itself.
func doubledKernel(k Kernel) Kernel {
	if d, ok := k.(interface{ doubled() Kernel }); ok {
		return d.doubled()
	}
	return k
}

// doublingsNote is the end of a summary line for n doublings by (W5).
func doublingsNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", doubled %d times (W5)", n)
}

// guardARD is the guard (E7) of a binary Classifier's ARD learning: the
// single Gaussian width of the default (learned by the same bound from
// the inputs' MedianDistance) is learned too, and the ARD kernel res is
// kept only if its full-model bound is more than guardMargin above the
// single width's, k − 1 nats for the k scales that do not switch their
// input off, the test of (E6) applied to the bound, the criterion both
// were learned by. The arguments are those of
// learnKernel; lo are the resolved options of res's learning, given
// those the user set.
func (f *fitted) guardARD(ctx context.Context, s settings, b basis, xs mat.Matrix, res *learnResult, lo, given KernelLearning,
	newLik func() likelihood) (*learnResult, error) {
	ard, ok := res.kernel.(ARDGaussian)
	if !ok || res.sol == nil {
		return res, nil
	}
	r0 := MedianDistance(xs)
	if !(r0 > 0) || math.IsInf(r0*r0, 0) {
		return res, nil
	}
	lw := lo
	lw.MaxRefits = given.MaxRefits
	if lw.MaxRefits == 0 {
		lw.MaxRefits = defaultLearnRefits
	}
	w, err := learnKernel(ctx, s, b, xs, Gaussian{Width: r0}, lw, newLik)
	if err != nil || w == nil || w.sol == nil {
		return res, err
	}
	margin := guardMargin(ard.Scales, w.kernel.(Gaussian).Width)
	va, vw := res.sol.full, w.sol.full
	if va-vw > margin && s.noHeldout {
		f.evidenceNote = fmt.Sprintf("length scales learned by the full-model bound: %.6g, more than %.3g nats (E7) above %.6g at the learned width %.4g; kept the length scales",
			va, margin, vw, w.kernel.(Gaussian).Width)
		return res, nil
	}
	if va-vw > margin {
		head := fmt.Sprintf("length scales learned by the full-model bound: %.6g, more than %.3g nats (E7) above %.6g at the learned width %.4g",
			va, margin, vw, w.kernel.(Gaussian).Width)
		la, err := binaryLOO(res.prob, res.sol, xs)
		if err != nil {
			return nil, err
		}
		lw, err := binaryLOO(w.prob, w.sol, xs)
		if err != nil {
			return nil, err
		}
		g := newLooGain(la, lw)
		if !g.keep() {
			f.evidenceNote = head + "; " + g.text() + "; kept the width"
			return w, nil
		}
		f.evidenceNote = head + "; " + g.text() + "; kept the length scales"
		return res, nil
	}
	f.evidenceNote = fmt.Sprintf("length scales learned by the full-model bound: %.6g at %v, not more than %.3g nats (E7) above %.6g at the learned width; kept the width",
		va, res.kernel, margin, vw)
	return w, nil
}
