package augment

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

const (
	// probeRows is the number of each of the three kinds of probe
	// points of (A14): training inputs spread through them, midpoints of
	// consecutive ones, and the same inputs moved away from the inputs'
	// mean x̄ to x̄ + s(x − x̄), s = 1.1, 1.25, 1.5 in turn.
	probeRows = 256
	// probeSD and probeMean are (A14)'s tolerances, relative to the
	// augmented latent sd at each probe point: on the sd, and on the
	// mean.
	probeSD, probeMean = 0.0025, 0.005
)

// probes holds the probe points of (A14), their design, the plain latent
// variances φᵀΣφ there and the increments of the low-rank form over
// every pivot.
type probes struct {
	x, phi   *mat.Dense
	plain    [][]float64 // per latent function
	dm0, dv0 [][]float64
}

// fewest returns the low-rank form over the fewest leading pivots whose
// augmented latent predictions match those of full, the form over every
// pivot, at the probe points of (A14): every sd within probeSD of full's
// and every mean within probeMean of full's sd. The pivots' order is the
// factorisation's, so any leading set is a Cholesky factor of its own
// (leading); the fewest is found by bisection, which assumes the
// agreement, once reached, holds for more pivots, and returns full
// where none fewer passes.
func (f *factor) fewest(full *LowRank, k Kernel, phiAt Design) (*LowRank, error) {
	pr, err := f.probes(full, k, phiAt)
	if err != nil {
		return nil, err
	}
	lo, hi := 1, full.Rank()
	best := full
	for lo < hi {
		mid := (lo + hi) / 2
		ny := f.leading(mid)
		ok := ny != nil
		if ok {
			if ok, err = pr.match(ny, k); err != nil {
				return nil, err
			}
		}
		if ok {
			hi, best = mid, ny
		} else {
			lo = mid + 1
		}
	}
	return best, nil
}

// probes returns the probe points of (A14) for the inputs of f, with the
// plain variances and full's increments there.
func (f *factor) probes(full *LowRank, k Kernel, phiAt Design) (*probes, error) {
	n, d := f.x.Dims()
	rows := design.Spread(n, min(n, probeRows))
	nr := len(rows)
	mids := nr - 1
	mean := make([]float64, d)
	for i := range n {
		for j, v := range f.x.RawRowView(i) {
			mean[j] += v / float64(n)
		}
	}
	x := mat.NewDense(nr+mids+nr, d, nil)
	for i, r := range rows {
		xi := f.x.RawRowView(r)
		x.SetRow(i, xi)
		out := x.RawRowView(nr + mids + i)
		s := []float64{1.1, 1.25, 1.5}[i%3]
		for j, v := range xi {
			out[j] = mean[j] + s*(v-mean[j])
		}
		if i+1 < nr {
			b := f.x.RawRowView(rows[i+1])
			mid := x.RawRowView(nr + i)
			for j := range mid {
				mid[j] = 0.5 * (xi[j] + b[j])
			}
		}
	}
	phi, err := phiAt(x)
	if err != nil {
		return nil, err
	}
	pr := &probes{x: x, phi: phi}
	np, m := phi.Dims()
	ps := mat.NewDense(np, m, nil)
	for _, l := range f.lats {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, phi.RawMatrix(), l.Sigma, 0, ps.RawMatrix())
		v := make([]float64, np)
		for i := range v {
			v[i] = dot(ps.RawRowView(i), phi.RawRowView(i)) // φᵀΣφ
		}
		pr.plain = append(pr.plain, v)
	}
	pr.dm0, pr.dv0, err = pr.increments(full, k)
	return pr, err
}

// increments returns the mean and variance increments of ny at the
// probe points, per latent function.
func (pr *probes) increments(ny *LowRank, k Kernel) (dm, dv [][]float64, err error) {
	np, m := pr.phi.Dims()
	for range ny.lats {
		dm, dv = append(dm, make([]float64, np)), append(dv, make([]float64, np))
	}
	var s LowRankScratch
	err = ny.Block(k, pr.x, 0, pr.phi.RawMatrix().Data, m, 1, &s, func(l, i int, a, b float64) {
		dm[l][i] += a
		dv[l][i] += b
	})
	return dm, dv, err
}

// match reports whether ny's augmented latent predictions at the probe
// points are within (A14)'s tolerances of the full form's.
func (pr *probes) match(ny *LowRank, k Kernel) (bool, error) {
	dm, dv, err := pr.increments(ny, k)
	if err != nil {
		return false, err
	}
	for l, plain := range pr.plain {
		for i, v := range plain {
			sd := math.Sqrt(v + pr.dv0[l][i])
			if math.Abs(math.Sqrt(v+dv[l][i])-sd) > probeSD*sd || math.Abs(dm[l][i]-pr.dm0[l][i]) > probeMean*sd {
				return false, nil
			}
		}
	}
	return true, nil
}
