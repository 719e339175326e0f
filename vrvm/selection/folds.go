package selection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// FoldsError reports a number of folds that does not fit the data:
// k-fold cross-validation needs 2 ≤ k ≤ N.
type FoldsError struct {
	Folds, Rows int
}

func (e *FoldsError) Error() string {
	return fmt.Sprintf("selection: %d folds for %d rows: need 2 ≤ folds ≤ rows", e.Folds, e.Rows)
}

// rng returns the generator of the fold permutations for seed.
func rng(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// KFold splits the rows 0, …, n−1 into k folds of sizes differing by at
// most one, by a random permutation drawn from seed: fold i holds the
// permuted rows at positions i, i+k, i+2k, …. Each fold is returned in
// increasing row order; the folds are disjoint and cover every row. The
// same arguments always give the same folds.
//
// KFold returns a *FoldsError unless 2 ≤ k ≤ n.
func KFold(n, k int, seed uint64) ([][]int, error) {
	if k < 2 || k > n {
		return nil, &FoldsError{Folds: k, Rows: n}
	}
	return deal(rng(seed).Perm(n), k), nil
}

// StratifiedKFold is KFold for class labels: the rows of each distinct
// label value are permuted separately (labels in increasing order) and
// dealt to the folds in turn, so that every fold holds the classes in
// about their overall proportions. A class with fewer than k rows is
// missing from some folds.
//
// StratifiedKFold returns a *FoldsError unless 2 ≤ k ≤ len(labels), and
// an error if a label is NaN.
func StratifiedKFold(labels []float64, k int, seed uint64) ([][]int, error) {
	n := len(labels)
	if k < 2 || k > n {
		return nil, &FoldsError{Folds: k, Rows: n}
	}
	for i, l := range labels {
		if math.IsNaN(l) {
			return nil, fmt.Errorf("selection: label %d is NaN", i)
		}
	}
	values := slices.Clone(labels)
	slices.Sort(values)
	values = slices.Compact(values)
	r := rng(seed)
	order := make([]int, 0, n)
	for _, v := range values {
		var rows []int
		for i, l := range labels {
			if l == v {
				rows = append(rows, i)
			}
		}
		for _, j := range r.Perm(len(rows)) {
			order = append(order, rows[j])
		}
	}
	return deal(order, k), nil
}

// deal assigns order[j] to fold j mod k and sorts each fold.
func deal(order []int, k int) [][]int {
	folds := make([][]int, k)
	for j, row := range order {
		folds[j%k] = append(folds[j%k], row)
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds
}
