package vrvm

import (
	"encoding/binary"
	"math"

	"gonum.org/v1/gonum/mat"
)

// distinctData returns the indices of the rows of (x, t) that do not
// repeat an earlier row, inputs and target bit for bit (D1), or nil if
// every row is distinct or the data fail checkInputs (the fit then
// reports the problem at the row of the data given).
func distinctData(x mat.Matrix, t []float64) []int {
	if checkInputs(x, t) != nil {
		return nil
	}
	n, d := x.Dims()
	seen := make(map[string]struct{}, n)
	key := make([]byte, 8*(d+1))
	kept := make([]int, 0, n)
	for i := range n {
		for j := range d {
			binary.LittleEndian.PutUint64(key[8*j:], math.Float64bits(x.At(i, j)))
		}
		binary.LittleEndian.PutUint64(key[8*d:], math.Float64bits(t[i]))
		if _, ok := seen[string(key)]; ok {
			continue
		}
		seen[string(key)] = struct{}{}
		kept = append(kept, i)
	}
	if len(kept) == n {
		return nil
	}
	return kept
}

// selectData returns the rows kept of x and t.
func selectData(x mat.Matrix, t []float64, kept []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	xs := mat.NewDense(len(kept), d, nil)
	ts := make([]float64, len(kept))
	for i, r := range kept {
		for j := range d {
			xs.Set(i, j, x.At(r, j))
		}
		ts[i] = t[r]
	}
	return xs, ts
}
