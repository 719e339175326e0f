package vrvm

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// A fit from sufficient statistics by any solver but the paper's
// schedule runs that solver on pseudo-rows. With the eigendecomposition
// ΦᵀΦ = V Λ Vᵀ, the r rows R = Λ^½ Vᵀ (one per eigenvalue kept) and the
// targets z = Λ^-½ Vᵀ Φᵀt satisfy
//
//	RᵀR = ΦᵀΦ,   Rᵀz = Φᵀt,   zᵀz = tᵀΦ(ΦᵀΦ)⁺Φᵀt ≤ tᵀt,
//
// so that for every w
//
//	‖t − Φw‖² = tᵀt − 2wᵀΦᵀt + wᵀΦᵀΦw = ‖z − Rw‖² + (tᵀt − zᵀz):     (P1)
//
// the design enters Q_w (23)–(24) through ΦᵀΦ and Φᵀt only, which R
// and z reproduce, and the expected squared error of (27) and (40) is
// that of the pseudo-rows plus the constant tᵀt − zᵀz (gaussLik.extra),
// with the N rows of the statistics in c̃ (26) and in (40) (gaussLik.n).
// Every update and every term of the bound is then that of the fit on
// the rows, and the solver works on r ≤ C rows whatever N. Eigenvalues
// below pseudoRowTol times the largest (the numerical null space of Φ,
// in which Φᵀt has no component) give no row.

// pseudoRowTol is the relative eigenvalue of ΦᵀΦ below which a direction
// gives no pseudo-row; factorTol (the pivoted Cholesky of the kernel
// matrix in the row-based fit) is the same bound on the neglected part.
const pseudoRowTol = 1e-15

// pseudoRows returns R, z and tᵀt − zᵀz (at least 0) of (P1) for st.
func pseudoRows(st *Stats) (r *mat.Dense, z []float64, extra float64, err error) {
	c := st.c
	var es mat.EigenSym
	if !es.Factorize(st.gram, true) {
		return nil, nil, 0, &NonFiniteError{What: "eigendecomposition of ΦᵀΦ", Row: -1, Col: -1, Value: math.NaN()}
	}
	lam := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	top := lam[len(lam)-1]
	var keep []int
	for k, l := range lam {
		if l > pseudoRowTol*top {
			keep = append(keep, k)
		}
	}
	if len(keep) == 0 {
		keep = []int{len(lam) - 1} // ΦᵀΦ = 0: one zero row
	}
	r = mat.NewDense(len(keep), c, nil)
	z = make([]float64, len(keep))
	var zz float64
	for i, k := range keep {
		s := math.Sqrt(math.Max(lam[k], 0))
		row := r.RawRowView(i)
		var vt float64 // vₖᵀΦᵀt
		for j := range c {
			vk := v.At(j, k)
			row[j] = s * vk
			vt += vk * st.phiT[j]
		}
		if s > 0 {
			z[i] = vt / s
		}
		zz += z[i] * z[i]
	}
	return r, z, math.Max(0, st.tt-zz), nil
}

// fitPseudoRows runs the solver of p.set on the pseudo-rows of st (P1),
// as a user design of C columns whose likelihood counts st's N rows; the
// solution's columns are those of the statistics' basis; g is p's
// likelihood.
func fitPseudoRows(ctx context.Context, st *Stats, p *problem, g *gaussLik) (*solution, error) {
	r, z, extra, err := pseudoRows(st)
	if err != nil {
		return nil, err
	}
	g.SetPseudoRows(z, extra) // n stays N, (26) and (40)
	q := &problem{basis: basis{dim: st.c}, x: r, lik: g, set: p.set}
	return q.set.method.algorithm().fit(ctx, q)
}
