package vrvm

import (
	"math/rand/v2"
	"slices"
)

// defaultMaxCentres is the number of training inputs above which a
// Regressor or Classifier whose Centres field is zero takes the centres of
// its kernel functions from a subset of defaultMaxCentres training inputs
// instead of from all of them. Below it every input is a centre, as in the
// paper.
//
// The subset bounds the number of candidate functions P, and with it the
// work of an addition round (O(P M²) for M active functions) and, for
// kernels whose kernel matrix has a large numerical rank (for example a
// Gaussian kernel in ten dimensions), the memory of the explicit N × P
// design the Sequential solver then keeps (factor.go). At N = 20,000 that
// is 0.8 GB instead of 3.2 GB.
const defaultMaxCentres = 5000

// centreSeed seeds the generator that draws a subset of centres, so that
// the same N and Centres give the same subset.
const centreSeed = 0x5eed

// centreRows returns the training rows whose inputs are the centres of
// the kernel functions, in increasing order, or nil when every one of the
// n rows is a centre: c centres (0 means the default of defaultMaxCentres
// when n exceeds it), drawn uniformly without replacement.
func centreRows(n, c int, has bool) []int {
	if !has {
		return nil
	}
	if c == 0 {
		c = defaultMaxCentres
	}
	if c >= n {
		return nil
	}
	rnd := rand.New(rand.NewPCG(centreSeed, uint64(n)))
	rows := rnd.Perm(n)[:c]
	slices.Sort(rows)
	return rows
}
