package vrvm

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

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
	lo, err := v.learning.resolve(k0)
	if err != nil {
		return nil, err
	}
	_, ard := k0.(ARDGaussian)
	var start learnable // the user's start, if any
	switch g := given.(type) {
	case Gaussian:
		if g.Width != 0 {
			start = k0
		}
	case ARDGaussian:
		if g.Scales != nil {
			start = k0
		}
	}
	if err := f.defaultWidth(ctx, &o, x, t, lo); err != nil {
		return nil, err
	}
	f.widthEvidence = 0
	r := o.kernel.(Gaussian).Width
	xs, ts := learnRows(x, t, lo.MaxRows)
	ef, err := learnByEvidence(ctx, xs, ts, ard, r, start, lo)
	if err != nil {
		return nil, fmt.Errorf("vrvm: kernel learning by the dense model's evidence: %w", err)
	}
	if ef == nil {
		f.evidenceNote = "kernel not learned: the targets do not vary; the width of (W4)"
		f.learnTrace = []float64{}
	} else {
		if ef.kept {
			o.kernel = ef.kernel
		}
		f.learnTrace = []float64{ef.base, ef.evidence}
		f.evidenceNote = ef.note(ard)
	}
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

// doubledKernel returns k with its width or every length scale doubled (W5).
func doubledKernel(k Kernel) Kernel {
	switch kk := k.(type) {
	case ARDGaussian:
		s := make([]float64, len(kk.Scales))
		for i, v := range kk.Scales {
			s[i] = 2 * v
		}
		return ARDGaussian{Scales: s}
	case Gaussian:
		return Gaussian{Width: 2 * kk.Width}
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
