package design

import (
	"math/rand/v2"
	"slices"
)

// DefaultMaxCentres is the number of training inputs above which a model
// whose number of centres is left at zero takes the centres of its
// kernel functions from a subset of DefaultMaxCentres training inputs
// instead of from all of them. Below it every input is a centre, as in
// the paper.
//
// The subset bounds the number of candidate functions P, and with it the
// work of an addition round (O(P M²) for M active functions) and, for
// kernels whose kernel matrix has a large numerical rank (for example a
// Gaussian kernel in ten dimensions), the memory of an explicit N × P
// design. At N = 20,000 that is 0.8 GB instead of 3.2 GB.
const DefaultMaxCentres = 5000

// centreSeed seeds the generator that draws a subset of centres, so that
// the same N and number of centres give the same subset.
const centreSeed = 0x5eed

// CentreRows returns the training rows whose inputs are the centres of
// the kernel functions, in increasing order, or nil when every one of the
// n rows is a centre (or has is false): c centres (0 means
// DefaultMaxCentres when n exceeds it), drawn uniformly without
// replacement.
func CentreRows(n, c int, has bool) []int {
	if !has {
		return nil
	}
	if c == 0 {
		c = DefaultMaxCentres
	}
	if c >= n {
		return nil
	}
	rnd := rand.New(rand.NewPCG(centreSeed, uint64(n)))
	rows := rnd.Perm(n)[:c]
	slices.Sort(rows)
	return rows
}
