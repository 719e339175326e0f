package sequential

import (
	"math"

	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// holdTwins adds to the held terms of the excluded functions, (S4), those
// of the functions left out of a collapsed problem as copies of candidate
// j: each is held at the excluded optimum for dⱼ, as j itself would be,
// whether j is active or not (a copy of an active function is never
// added).
func (s *seqFit) holdTwins(dv []float64) {
	if s.cls.twins == nil {
		return
	}
	s.cls.twinV = vec.Resize(s.cls.twinV, len(dv))
	e := lb.NewExcludedTerms(s.prior)
	for j, k := range s.cls.twins {
		s.cls.twinV[j] = 0
		if k == 0 {
			continue
		}
		d := math.Max(dv[j], 0)
		a := lb.AlphaRoot(s.prior.A, s.prior.B, d, 0)
		v := 1 / (a + d)
		s.exConst += k * (e.TermAt(d, a) + 0.5*d*v)
		s.cls.twinV[j] = k * v
	}
}

// heldWeights returns the weights vⱼ of the held excluded factors in
// eₙ = Σⱼ vⱼφₙⱼ², those of left-out copies included.
func (s *seqFit) heldWeights() []float64 {
	if s.cls.twinV == nil {
		return s.exV
	}
	w := make([]float64, len(s.exV))
	for j, v := range s.exV {
		w[j] = v + s.cls.twinV[j]
	}
	return w
}

// twinsExcluded returns the closed-form terms (excludedTerm) of the
// copies left out of a collapsed problem.
func (s *seqFit) twinsExcluded(dv []float64) float64 {
	var sum float64
	e := lb.NewExcludedTerms(s.prior)
	for j, k := range s.cls.twins {
		if k > 0 {
			sum += k * e.Term(math.Max(dv[j], 0))
		}
	}
	return sum
}
