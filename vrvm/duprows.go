package vrvm

import (
	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// distinctData returns the rows of (x, t) that do not repeat an earlier
// row, inputs and target bit for bit (D1), with their indices in x, or a
// nil kept if every row is distinct or the data fail checkInputs (the fit
// then reports the problem at the row of the data given).
func distinctData(x mat.Matrix, t []float64) (xs *mat.Dense, ts []float64, kept []int) {
	if checkInputs(x, t) != nil {
		return nil, nil, nil
	}
	xd := denseOf(x)
	_, first := distinctRows(xd, t)
	if len(first) == len(t) {
		return nil, nil, nil
	}
	return selectRows(xd, first), selectVec(t, first), first
}

// distinctRows is that of the design package (D1).
func distinctRows(x *mat.Dense, key []float64) (of, first []int) { return design.DistinctRows(x, key) }
