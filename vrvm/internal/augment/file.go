package augment

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// File is the low-rank form of augmented predictions (A10)–(A11) in a
// model file (version 3 on): the pivots, first those at the active
// centres (their design columns), then the others (their inputs: from
// version 4 the flat Floats PivotData, PivotCount rows, before it the
// rows Pivots), and one entry per latent function (one for a regressor
// or a binary classifier, one per class for a multi-class model).
type File struct {
	DesignPivots []int        `json:"design_pivots,omitempty"`
	Pivots       [][]float64  `json:"pivots,omitempty"`
	PivotCount   int          `json:"pivot_count,omitempty"`
	PivotData    Floats       `json:"pivot_data,omitempty"`
	Latents      []LatentFile `json:"latents"`
}

// LatentFile is one latent function's r × (p + M + 1) matrix
// L⁻ᵀ[VΛ^½, Sᵀ, w] of (A11), by rows (from version 4 the flat Floats
// WData), and p.
type LatentFile struct {
	P     int         `json:"p"`
	W     [][]float64 `json:"w,omitempty"`
	WData Floats      `json:"w_data,omitempty"`
}

// Encode returns the file form of ny.
func (ny *LowRank) Encode() *File {
	r := ny.w.Rows
	out := &File{DesignPivots: ny.cols, PivotCount: r - len(ny.cols)}
	for i := range r - len(ny.cols) {
		out.PivotData = append(out.PivotData, ny.z.RawRowView(i)...)
	}
	for _, l := range ny.lats {
		lf := LatentFile{P: l.p}
		for i := range r {
			lf.WData = append(lf.WData, ny.w.Data[i*ny.w.Stride+l.off:i*ny.w.Stride+l.off+l.p+l.m+1]...)
		}
		out.Latents = append(out.Latents, lf)
	}
	return out
}

// rows returns the pivot inputs and each latent function's W by rows,
// from either form of the file, for m active functions.
func (lf *File) rows(dim, m int) (piv [][]float64, w [][][]float64, err error) {
	piv = lf.Pivots
	if lf.PivotCount > 0 || len(lf.PivotData) > 0 {
		if len(lf.Pivots) != 0 {
			return nil, nil, fmt.Errorf("low_rank: both forms of the pivots")
		}
		if piv, err = lf.PivotData.Rows(lf.PivotCount, dim); err != nil {
			return nil, nil, err
		}
	}
	r := len(lf.DesignPivots) + len(piv)
	for c, l := range lf.Latents {
		wl := l.W
		if len(l.WData) > 0 {
			if len(l.W) != 0 || l.P < 0 || l.P > r {
				return nil, nil, fmt.Errorf("low_rank: latent %d has both forms, or p = %d for rank %d", c, l.P, r)
			}
			if wl, err = l.WData.Rows(r, l.P+m+1); err != nil {
				return nil, nil, err
			}
		}
		w = append(w, wl)
	}
	return piv, w, nil
}

// Decode validates the low-rank form of a model file for inputs of
// dimension dim, m active functions (the kernel functions from column
// off) and the prior precisions alphaStar of its latent functions, and
// rebuilds it.
func (lf *File) Decode(dim, m, off int, alphaStar []float64) (*LowRank, error) {
	pivots, ws, err := lf.rows(dim, m)
	if err != nil {
		return nil, err
	}
	r := len(lf.DesignPivots) + len(pivots)
	seen := map[int]bool{}
	for _, c := range lf.DesignPivots {
		if c < off || c >= m || seen[c] {
			return nil, fmt.Errorf("low_rank: design pivot %d, want distinct kernel columns in [%d, %d)", c, off, m)
		}
		seen[c] = true
	}
	if len(lf.Latents) != len(alphaStar) {
		return nil, fmt.Errorf("low_rank: %d latent functions, want %d", len(lf.Latents), len(alphaStar))
	}
	ny := &LowRank{cols: lf.DesignPivots}
	if len(pivots) > 0 {
		ny.z = mat.NewDense(len(pivots), dim, nil)
	}
	for i, p := range pivots {
		if len(p) != dim {
			return nil, fmt.Errorf("low_rank: pivot %d has %d inputs, want %d", i, len(p), dim)
		}
		if err := finite("pivot", p); err != nil {
			return nil, err
		}
		ny.z.SetRow(i, p)
	}
	var blocks []blas64.General
	cols := 0
	for c, l := range lf.Latents {
		if l.P < 0 || l.P > r || len(ws[c]) != r {
			return nil, fmt.Errorf("low_rank: latent %d has p = %d and %d rows for rank %d", c, l.P, len(ws[c]), r)
		}
		nc := l.P + m + 1
		b := blas64.General{Rows: r, Cols: nc, Stride: nc, Data: make([]float64, r*nc)}
		for i, row := range ws[c] {
			if len(row) != nc {
				return nil, fmt.Errorf("low_rank: latent %d row %d has %d entries, want %d", c, i, len(row), nc)
			}
			if err := finite("w", row); err != nil {
				return nil, err
			}
			copy(b.Data[i*nc:], row)
		}
		ny.lats = append(ny.lats, latentCols{off: cols, p: l.P, m: m, alphaStar: alphaStar[c]})
		blocks = append(blocks, b)
		cols += nc
	}
	ny.w = joinCols(r, cols, blocks)
	return ny, nil
}

// finite returns an error for the first NaN or infinite value of v.
func finite(what string, v []float64) error {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("low_rank: non-finite %s value %v", what, x)
		}
	}
	return nil
}

// ConstantDiag is ConstantDiagonal (A9) at the pivots of ny: the model's
// centres (the pivots taken first) and the further pivots z.
func (ny *LowRank) ConstantDiag(k design.Kernel, centres mat.Matrix) bool {
	var rows [][]float64
	for _, x := range []mat.Matrix{centres, ny.z} {
		if x == nil || x == (*mat.Dense)(nil) {
			continue
		}
		n, _ := x.Dims()
		for i := range n {
			rows = append(rows, mat.Row(nil, i, x))
		}
	}
	if len(rows) == 0 {
		return true
	}
	all := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		all.SetRow(i, r)
	}
	return ConstantDiagonal(k, all)
}

// Rank returns the number r of pivots.
func (ny *LowRank) Rank() int { return ny.w.Rows }

// Latents returns the number of latent functions.
func (ny *LowRank) Latents() int { return len(ny.lats) }

// AlphaStar returns the prior precision α* (A5) of the latent function l.
func (ny *LowRank) AlphaStar(l int) float64 { return ny.lats[l].alphaStar }
