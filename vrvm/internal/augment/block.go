package augment

import (
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/internal/dense"
	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// LowRankScratch is a worker's buffers for LowRank.Block.
type LowRankScratch struct{ kz, out, q, pu []float64 }

// Adjust augments, through the low-rank form, the latent means and
// variances at the rows of x, by blocks of rows with the design phi of
// the m active functions (Block); add receives the latent function, the
// row and the mean and variance increments.
func (ny *LowRank) Adjust(k Kernel, phi Design, m int, x *mat.Dense, add func(lat, i int, dm, dv float64)) error {
	n, d := x.Dims()
	size := design.BlockRows(ny.w.Rows + m + ny.w.Cols)
	scratch := make([]LowRankScratch, runtime.GOMAXPROCS(0))
	return design.Parallel(n, size, ny.w.Rows+m+ny.w.Cols, nil, func(lo, hi, w int) error {
		xb := x.Slice(lo, hi, 0, d).(*mat.Dense)
		phis, err := phi(xb)
		if err != nil {
			return err
		}
		return ny.Block(k, xb, lo, phis.RawMatrix().Data, m, 1, &scratch[w], add)
	})
}

// Block augments the rows xb (from row lo) given their design, Φₓ[i, j]
// at phi[i·rs + j·cs]: kz = K(x*, pivots), the centres' values taken
// from the design, and one product Wᵀkz give, for each latent function,
//
//	q = α* + ‖kzᵀL⁻ᵀVΛ^½‖²,  e = K(x*, x*) − φ*ᵀSL⁻¹kz,  kᵀr ≈ wᵀL⁻¹kz   (A11)
//
// and (A2)–(A4) as in ExactBlock. Both kz and the product are held by
// rows of pivots and of W's columns (r × b, (p + M + 1) × b), so that
// the kernel's exponentials and the sums over a block run along rows.
func (ny *LowRank) Block(k Kernel, xb *mat.Dense, lo int, phi []float64, rs, cs int, s *LowRankScratch, add func(lat, i int, dm, dv float64)) error {
	b, _ := xb.Dims()
	r, nc := ny.w.Rows, ny.w.Cols
	r1 := len(ny.cols)
	if len(s.kz) < b*r || len(s.out) < b*nc || len(s.q) < b {
		s.kz, s.out, s.q, s.pu = make([]float64, b*r), make([]float64, b*nc), make([]float64, b), make([]float64, b)
	}
	out := blas64.General{Rows: nc, Cols: b, Stride: b, Data: s.out[:nc*b]}
	if r > 0 {
		kzT := s.kz[:r*b]
		for j, c := range ny.cols {
			row := kzT[j*b : (j+1)*b]
			for i := range row {
				row[i] = phi[i*rs+c*cs]
			}
		}
		if r > r1 {
			if err := design.Fill(k.Kernel, mat.NewDense(r-r1, b, kzT[r1*b:]), xb, ny.z, lo, seq(r-r1), true); err != nil {
				return err
			}
		}
		dense.Gemm(blas.Trans, blas.NoTrans, 1, ny.w, blas64.General{Rows: r, Cols: b, Stride: b, Data: kzT}, 0, out)
	} else {
		clear(out.Data)
	}
	self, constant := k.Self, k.Constant
	qv, pu := s.q[:b], s.pu[:b]
	for li, l := range ny.lats {
		sumSquares(qv, out.Data[l.off*b:(l.off+l.p)*b])
		rowDots(pu, out.Data[(l.off+l.p)*b:(l.off+l.p+l.m)*b], phi, rs, cs)
		kr := out.Data[(l.off+l.p+l.m)*b : (l.off+l.p+l.m+1)*b]
		for i := range b {
			kss := self
			if !constant {
				xi := xb.RawRowView(i)
				kss = k.Eval(xi, xi)
			}
			q := l.alphaStar + qv[i]        // (A1), (A11)
			e := kss - pu[i]                // (A3)
			add(li, lo+i, e*kr[i]/q, e*e/q) // (A2), (A4)
		}
	}
	return nil
}

// sumSquares sets q[i] to the sum over the rows of rows (len(q) values
// each, by rows) of their squares at i, four rows a pass.
func sumSquares(q, rows []float64) {
	b := len(q)
	clear(q)
	c := 0
	for ; c+4 <= len(rows)/b; c += 4 {
		r0, r1, r2, r3 := rows[c*b:(c+1)*b], rows[(c+1)*b:(c+2)*b], rows[(c+2)*b:(c+3)*b], rows[(c+3)*b:(c+4)*b]
		r0, r1, r2, r3 = r0[:b], r1[:b], r2[:b], r3[:b]
		for i := range q {
			q[i] += r0[i]*r0[i] + r1[i]*r1[i] + r2[i]*r2[i] + r3[i]*r3[i]
		}
	}
	for ; c < len(rows)/b; c++ {
		for i, v := range rows[c*b : (c+1)*b] {
			q[i] += v * v
		}
	}
}

// rowDots sets p[i] = Σⱼ Φₓ[i, j]·rows[j][i] over the rows of rows
// (len(p) values each), Φₓ[i, j] at phi[i·rs + j·cs]; by four rows a pass
// where Φₓ is held by columns (rs = 1).
func rowDots(p, rows, phi []float64, rs, cs int) {
	b := len(p)
	m := len(rows) / b
	clear(p)
	j := 0
	if rs == 1 {
		for ; j+4 <= m; j += 4 {
			r0, r1, r2, r3 := rows[j*b:(j+1)*b], rows[(j+1)*b:(j+2)*b], rows[(j+2)*b:(j+3)*b], rows[(j+3)*b:(j+4)*b]
			f0, f1, f2, f3 := phi[j*cs:j*cs+b], phi[(j+1)*cs:(j+1)*cs+b], phi[(j+2)*cs:(j+2)*cs+b], phi[(j+3)*cs:(j+3)*cs+b]
			r0, r1, r2, r3 = r0[:b], r1[:b], r2[:b], r3[:b]
			for i := range p {
				p[i] += f0[i]*r0[i] + f1[i]*r1[i] + f2[i]*r2[i] + f3[i]*r3[i]
			}
		}
	}
	for ; j < m; j++ {
		for i, v := range rows[j*b : (j+1)*b] {
			p[i] += phi[i*rs+j*cs] * v
		}
	}
}
