package sequential

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	lb "github.com/vrvm/vrvm/vrvm/internal/bound"
	lh "github.com/vrvm/vrvm/vrvm/internal/likelihood"
	"github.com/vrvm/vrvm/vrvm/internal/posterior"
	"github.com/vrvm/vrvm/vrvm/internal/subset"
	"github.com/vrvm/vrvm/vrvm/internal/vec"
)

// removeUpdate removes the active function at position i and brings Q_w
// to its optimum: with uniform precisions by the partitioned inverse,
// Σ' = Σ₋ᵢ − Σ₋ᵢ,ᵢΣᵢ,₋ᵢ/Σᵢᵢ, μ' = μ₋ᵢ − μᵢΣ₋ᵢ,ᵢ/Σᵢᵢ and
// ln|Σ'| = ln|Σ| − ln Σᵢᵢ, O(M²); otherwise by rebuild, or, with
// lazyRemove, by the same O(M²) update, the likelihood seeing Q_w at the
// refresh after the sweep (S6).
func (s *seqFit) removeUpdate(i, iter int) error {
	if !s.uniform() && !s.lazyRemove || s.sig == nil {
		s.remove(i)
		return s.rebuild(iter)
	}
	m := len(s.act)
	sii := s.sig.At(i, i)
	col := make([]float64, m)
	for a := range m {
		col[a] = s.sig.At(a, i)
	}
	mi := s.q.Mu[i]
	s.remove(i)
	ns := mat.NewSymDense(m-1, nil)
	nd := ns.RawSymmetric().Data
	mu := make([]float64, 0, m-1)
	for a, na := 0, 0; a < m; a++ {
		if a == i {
			continue
		}
		mu = append(mu, s.q.Mu[a]-mi*col[a]/sii)
		for b, nb := a, na; b < m; b++ {
			if b == i {
				continue
			}
			nd[na*(m-1)+nb] = s.sig.At(a, b) - col[a]*col[b]/sii
			nb++
		}
		na++
	}
	s.sig, s.q.Mu = ns, mu
	s.sigUpdates++
	s.q.LogDet -= math.Log(sii)
	s.syncDiag()
	if !s.uniform() {
		return nil // lazyRemove: run's refresh rebuilds after the sweep
	}
	return s.refresh(iter)
}

// syncDiag sets diag Σ of Q_w from the kept Σ.
func (s *seqFit) syncDiag() {
	m := len(s.act)
	s.q.Diag = vec.Resize(s.q.Diag, m)
	for a := range m {
		s.q.Diag[a] = s.sig.At(a, a)
	}
}

// setActive makes the functions act, with ⟨αₘ⟩ alpha, the active set.
func (s *seqFit) setActive(act []int, alpha []float64) {
	s.act, s.alpha = act, alpha
	bA := subset.Rows(s.f.BFull, act)
	s.bA = bA
	if s.rowsShared() {
		s.bA = nil
	}
	if s.uniform() {
		m := len(act)
		_, r := bA.Dims()
		s.gram = mat.NewSymDense(m, nil)
		blas64.Syrk(blas.NoTrans, 1, bA.RawMatrix(), 0, s.gram.RawSymmetric())
		s.bud = make([]float64, m)
		blas64.Gemv(blas.NoTrans, 1, bA.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.ud}, 0, blas64.Vector{N: m, Inc: 1, Data: s.bud})
		p, _ := s.f.BFull.Dims()
		s.cross = make([][]float64, m)
		s.pending = make([]bool, m)
		for i := range m {
			s.cross[i], s.pending[i] = make([]float64, p), true
		}
		s.completeCross()
	}
	s.setPhiA()
}

// precisionOf returns dₘ = φₘᵀBφₘ of the active function at position i.
func (s *seqFit) precisionOf(i int) float64 {
	beta, uni := s.lik.Weights()
	if beta == nil {
		return uni * s.bnorm[s.act[i]]
	}
	var d float64
	for n := range s.n {
		v := s.phiA.At(n, i)
		d += beta[n] * v * v
	}
	return d
}

// remove takes the function at position i out of the active set.
func (s *seqFit) remove(i int) {
	s.deleted[s.act[i]]++
	// Hold the removed function at its excluded optimum for the current
	// precisions, (S4): dⱼ = β‖φⱼ‖², or from its column of Φ_A.
	j := s.act[i]
	beta, uni := s.lik.Weights()
	d := uni * s.bnorm[j]
	if beta != nil {
		d = 0
		for n := range s.n {
			v := s.phiA.At(n, i)
			d += beta[n] * v * v
		}
	}
	a := lb.AlphaRoot(s.prior.A, s.prior.B, d, 0)
	s.exV[j] = 1 / (a + d)
	s.exC[j] = lb.NewExcludedTerms(s.prior).TermAt(d, a) + 0.5*d*s.exV[j]
	s.exConst += s.exC[j]
	if beta == nil {
		s.exSum += s.exV[j] * s.bnorm[j]
	} else {
		for n := range s.n {
			v := s.phiA.At(n, i)
			s.exE[n] += s.exV[j] * v * v
		}
	}
	keep := make([]int, 0, len(s.act)-1)
	for k := range s.act {
		if k != i {
			keep = append(keep, k)
		}
	}
	// B_A loses row i in place: a copy of B_A per removal is M × N of
	// garbage.
	if !s.rowsShared() {
		_, r := s.bA.Dims()
		m := len(s.act)
		data := s.bA.RawMatrix().Data
		copy(data[i*r:], data[(i+1)*r:m*r])
		s.bA = mat.NewDense(m-1, r, data[:(m-1)*r])
	}
	s.act = subset.Ints(s.act, keep)
	s.alpha = subset.Vec(s.alpha, keep)
	if s.uniform() {
		s.keepCrossRow(i, j)
		s.gram = subset.Sym(s.gram, keep)
		s.bud = subset.Vec(s.bud, keep)
		s.cross = append(s.cross[:i], s.cross[i+1:]...)
		s.pending = append(s.pending[:i], s.pending[i+1:]...)
	}
	s.setPhiA()
}

// setPhiA forms the active design Φ_A = U B_Aᵀ when the likelihood's
// precisions are not uniform (with uniform ones, everything goes through
// B_A).
func (s *seqFit) setPhiA() {
	if s.uniform() {
		s.phiA = nil
		return
	}
	m := len(s.act)
	s.phiA = vec.WorkDense(&s.phiAData, s.n, m)
	if s.f.Ident {
		s.phiA.Copy(s.bA.T())
		return
	}
	dense.Gemm(blas.NoTrans, blas.Trans, 1, s.f.UFull.RawMatrix(), s.bA.RawMatrix(), 0, s.phiA.RawMatrix())
}

// rebuild sets Q_w to its optimum for the current ⟨α⟩ and the likelihood's
// factor, (23)–(24) or (54)–(55), and passes its moments to the
// likelihood.
func (s *seqFit) rebuild(iter int) error {
	m := len(s.act)
	_, r := s.f.BFull.Dims()
	h := make([]float64, m)
	beta, uni := s.lik.Weights()
	prec := vec.WorkSym(&s.precBuf, m)
	if beta != nil {
		clear(prec.RawSymmetric().Data)
	}
	_, scale := s.lik.Data()
	if beta == nil {
		// ΦᵀBΦ = βG and Φᵀy = scale·Φᵀd, from the kept G and Φᵀd.
		pd, gd := prec.RawSymmetric().Data, s.gram.RawSymmetric().Data
		for i := range m {
			for j := i; j < m; j++ {
				pd[i*m+j] = uni * gd[i*m+j]
			}
			h[i] = scale * s.bud[i]
		}
	} else {
		s.weightedGramActive(prec, beta) // kept between rebuilds
		blas64.Gemv(blas.NoTrans, scale, s.bA.RawMatrix(), blas64.Vector{N: r, Inc: 1, Data: s.ud}, 0, blas64.Vector{N: m, Inc: 1, Data: h})
	}
	for i := range m {
		prec.SetSym(i, i, prec.At(i, i)+s.alpha[i])
	}
	if err := s.q.FactorInv(prec, iter); err != nil {
		return err
	}
	if s.q.Jitter > 0 {
		for i := range s.alpha {
			s.alpha[i] += s.q.Jitter
		}
	}
	if err := s.q.SolveMeanInv(h); err != nil {
		return err
	}
	s.sig = s.q.SigmaTo(&s.sigBuf)
	s.sigUpdates = 0
	s.ldSweep = 0
	if s.lat.Vars != nil {
		// z = B_Aᵀμ, so that Φμ = Uz; φₙᵀΣφₙ from Φ_A, and μᵀφₙ = uₙᵀz.
		blas64.Gemv(blas.NoTrans, 1, s.phiA.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: s.q.Mu}, 0, blas64.Vector{N: s.n, Inc: 1, Data: s.lat.Mean})
		s.qbuf = vec.WorkDense(&s.qData, s.n, m)
		s.q.QuadForms(s.lat.Vars, s.phiA, s.qbuf)
		s.lat.SumVar = vec.Sum(s.lat.Vars)
	} else {
		// Σₙ φₙᵀΣφₙ = (M − Σₘ αₘΣₘₘ)/β, and ‖d − Φμ‖² with no O(N) work.
		s.lat.Mean = nil
		s.lat.SqResid = s.sqResid()
		s.lat.SumVar = lh.UniformSumVar(s.alpha, s.q.Diag, uni)
	}
	s.lik.Observe(&s.lat)
	return nil
}

// refresh passes the moments of Q_w after a sweep to the likelihood. With
// uniform precisions they come from the Σ and μ the sweep kept up to date
// by rank one, O(M²) (the likelihood's update that follows needs a new
// factorisation anyway); otherwise Q_w is refactorised (rebuild).
func (s *seqFit) refresh(iter int) error {
	beta, uni := s.lik.Weights()
	if beta != nil {
		if s.cls.current {
			// extrapolate has just rebuilt Q_w for these ⟨α⟩.
			s.cls.current = false
			return nil
		}
		return s.rebuild(iter)
	}
	m := len(s.act)
	var g float64
	for i, a := range s.alpha {
		g += a * s.sig.At(i, i)
	}
	s.lat.Mean = nil
	s.lat.SqResid = s.sqResid()
	s.lat.SumVar = math.Max(0, (float64(m)-g)/uni)
	s.lik.Observe(&s.lat)
	return nil
}

// sqResid returns ‖d − Φμ‖² for uniform precisions. With r ≤ 4M it is
// ‖d‖² − ‖Uᵀd‖² + ‖Uᵀd − z‖² with z = B_Aᵀμ (design.Factor), O(rM);
// otherwise (the explicit design, r = N) ‖d‖² − 2μᵀΦ_Aᵀd + μᵀGμ from the
// kept G and Φ_Aᵀd, O(M²), unless that is below 1e-8‖d‖², where
// cancellation could dominate it and the first form is used.
func (s *seqFit) sqResid() float64 {
	m := len(s.act)
	_, r := s.f.BFull.Dims()
	if r > 4*m {
		gm := make([]float64, m)
		blas64.Symv(1, s.gram.RawSymmetric(), blas64.Vector{N: m, Inc: 1, Data: s.q.Mu}, 0, blas64.Vector{N: m, Inc: 1, Data: gm})
		if v := s.dd - 2*vec.Dot(s.q.Mu, s.bud) + vec.Dot(s.q.Mu, gm); v > 1e-8*s.dd {
			return v
		}
	}
	z := make([]float64, r)
	if s.rowsShared() {
		for i, a := range s.act {
			blas64.Axpy(s.q.Mu[i], blas64.Vector{N: r, Inc: 1, Data: s.f.BFull.RawRowView(a)}, blas64.Vector{N: r, Inc: 1, Data: z})
		}
	} else {
		blas64.Gemv(blas.Trans, 1, s.bA.RawMatrix(), blas64.Vector{N: m, Inc: 1, Data: s.q.Mu}, 0, blas64.Vector{N: r, Inc: 1, Data: z})
	}
	for i, v := range s.ud {
		z[i] = v - z[i]
	}
	return s.dperp + vec.Dot(z, z)
}

// sweep sets each active ⟨αₘ⟩ in turn to the maximiser of (S1), updating
// Σ and μ by rank one, and removes a function whose optimum exceeds the
// pruning threshold (never the last one). It returns the largest change of
// ln⟨αₘ⟩ and whether a function was removed.
func (s *seqFit) sweep(iter int) (maxDl float64, removed bool, err error) {
	for i := 0; i < len(s.act); {
		if s.holdBias && s.act[i] == 0 {
			i++
			continue
		}
		sii := s.sig.At(i, i)
		if !(sii > 0 && 1/sii > s.alpha[i]) {
			// sₘ = 1/Σₘₘ − ⟨αₘ⟩ > 0 in exact arithmetic: the kept Σ has
			// lost it to rounding (S14). Refactorised, or, if that is
			// what it is already, ⟨αₘ⟩ is left as it is: the clamped
			// sₘ = 0 would drive ⟨αₘ⟩ to 0 and Σ indefinite.
			if s.sigUpdates == 0 {
				i++
				continue
			}
			if err := s.rebuild(iter); err != nil {
				return maxDl, removed, err
			}
			continue
		}
		sm := math.Max(0, 1/sii-s.alpha[i])
		qm := s.q.Mu[i] / sii
		na := lb.AlphaRoot(s.prior.A, s.prior.B, sm, qm*qm)
		drop := false
		if !s.ctl.NoPrune && na > s.pruneAt {
			// Above the threshold: removed unless the full model's bound
			// loses at least keepGain by it, (S5); kept at its best
			// ⟨αₘ⟩ ≤ PruneAlpha otherwise.
			na = lb.AlphaRootUpTo(s.prior.A, s.prior.B, sm, qm*qm, s.pruneAt)
			drop = len(s.act) > 1 && s.contribution(na, sm, qm*qm, s.precisionOf(i)) < s.keepGain
		}
		if drop {
			if err := s.removeUpdate(i, iter); err != nil {
				return maxDl, true, err
			}
			removed = true
			if s.hook != nil {
				s.hook("remove")
			}
			continue
		}
		maxDl = math.Max(maxDl, math.Abs(math.Log(na/s.alpha[i])))
		// Σ' = Σ − k Σₘ Σₘᵀ, μ' = μ − k μₘ Σₘ, k = Δ/(1 + ΔΣₘₘ).
		d := na - s.alpha[i]
		k := d / (1 + d*sii)
		m := len(s.act)
		s.colBuf = vec.Resize(s.colBuf, m)
		col := s.colBuf
		sr := s.sig.RawSymmetric()
		for j := range i {
			col[j] = sr.Data[j*sr.Stride+i]
		}
		copy(col[i:], sr.Data[i*sr.Stride+i:i*sr.Stride+m])
		mi := s.q.Mu[i]
		for j := range m {
			s.q.Mu[j] -= k * mi * col[j]
		}
		posterior.SyrUpper(-k, col, s.sig.RawSymmetric())
		s.sigUpdates++
		s.ldSweep -= math.Log1p(d * sii)
		capped := s.alpha[i] > s.pruneAt
		s.alpha[i] = na
		if s.hook != nil && capped {
			// Held at the threshold, lowered since the last sweep (see
			// seqAnnealStart): this step may lower the bound.
			s.hook("cap")
		} else if s.hook != nil {
			s.hook("alpha")
		}
		i++
	}
	return maxDl, removed, nil
}
