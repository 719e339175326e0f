package design

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// RowHash is the FNV-1a hash of the bits of row followed by extra, for
// finding rows that are equal bit for bit.
func RowHash(row []float64, extra ...float64) uint64 {
	h := uint64(14695981039346656037)
	for _, vs := range [][]float64{row, extra} {
		for _, v := range vs {
			bits := math.Float64bits(v)
			for range 8 {
				h ^= bits & 0xff
				h *= 1099511628211
				bits >>= 8
			}
		}
	}
	return h
}

// Twins marks the rows of b equal, bit for bit, to an earlier row, or
// within TwinTol of one (NearTwins). Rows
// are grouped by a 64-bit FNV-1a hash of their bits and compared within a
// group, so that the memory is O(P), not a copy of B.
func Twins(b *mat.Dense) []bool {
	_, first := DistinctRows(b, nil)
	p, _ := b.Dims()
	tw := make([]bool, p)
	for j := range tw {
		tw[j] = true
	}
	for _, j := range first {
		tw[j] = false
	}
	NearTwins(b, first, tw)
	return tw
}

// TwinTol is the largest distance ‖bⱼ − bᵢ‖, relative to ‖bᵢ‖, at which
// the function of row j counts as a twin of that of an earlier row i:
// a thousand times the accuracy of the factored design of the vrvm package, far
// below any difference the data can weigh. Training rows that differ by
// 1e-12 (a file whose rows were saved twice through a lossy conversion)
// are otherwise distinct functions that the data cannot tell apart, and
// coordinate ascent between them crawls as between exact twins
// (docs/benchmarks.md, "Measurements behind choices in the code").
const TwinTol = 1e-10

// NearTwins marks in tw the rows of b among first (not already marked)
// within TwinTol of an earlier one. A twin's squared norm is within
// about 2·TwinTol of its earlier row's (|‖bⱼ‖ − ‖bᵢ‖| ≤ ‖bⱼ − bᵢ‖, the
// triangle inequality), so each row is compared only with the rows whose
// squared norms lie within twinWindow of its own, found in the rows sorted
// by that norm, and each pair until the distance exceeds the tolerance,
// which for distinct functions is within the first few elements. The
// rows marked are those of comparing every later row (nearTwinsAll).
func NearTwins(b *mat.Dense, first []int, tw []bool) {
	norm := make([]float64, len(first))
	for a, i := range first {
		for _, v := range b.RawRowView(i) {
			norm[a] += v * v
		}
		if math.IsInf(norm[a], 0) || math.IsNaN(norm[a]) {
			nearTwinsAll(b, first, tw, norm)
			return
		}
	}
	order := make([]int, len(first)) // positions in first, by norm
	for a := range order {
		order[a] = a
	}
	sort.Slice(order, func(x, y int) bool { return norm[order[x]] < norm[order[y]] })
	sorted := make([]float64, len(order))
	for k, a := range order {
		sorted[k] = norm[a]
	}
	var near []int
	for a, i := range first {
		if tw[i] {
			continue
		}
		ni := norm[a]
		w := twinWindow * ni
		lo := sort.SearchFloat64s(sorted, ni-w)
		near = near[:0]
		for k := lo; k < len(sorted) && sorted[k] <= ni+w; k++ {
			if order[k] > a {
				near = append(near, first[order[k]])
			}
		}
		markTwins(b, i, ni, near, tw)
	}
}

// twinWindow is the half-width, relative to ‖bᵢ‖², of the squared norms
// compared with row i's in NearTwins: twice the (1 + TwinTol)² − 1 of a
// twin, far above the rounding of the norms.
const twinWindow = 4 * TwinTol

// nearTwinsAll is NearTwins comparing every pair, for norms that are not
// finite; norm holds the rows' squared norms in the order of first.
func nearTwinsAll(b *mat.Dense, first []int, tw []bool, norm []float64) {
	for a, i := range first {
		if !tw[i] {
			markTwins(b, i, norm[a], first[a+1:], tw)
		}
	}
}

// markTwins marks in tw the rows js (not already marked) within TwinTol
// of row i, whose squared norm is ni.
func markTwins(b *mat.Dense, i int, ni float64, js []int, tw []bool) {
	ri := b.RawRowView(i)
	lim := TwinTol * TwinTol * ni
	for _, j := range js {
		if tw[j] {
			continue
		}
		rj := b.RawRowView(j)
		var d float64
		for k, v := range ri {
			e := v - rj[k]
			if d += e * e; d > lim {
				break
			}
		}
		if d <= lim {
			tw[j] = true
		}
	}
}

// DistinctRows groups the rows of x that are equal bit for bit and, if
// key is not nil, have equal keys: of[i] is row i's group and first[g]
// the first row of group g, in row order. Rows are grouped by rowHash and
// compared within a group, so the memory is O(rows): one map entry a
// group, and a list only for the groups whose hashes collide (a
// Regressor groups every training set by it, (D1)).
func DistinctRows(x *mat.Dense, key []float64) (of, first []int) {
	n, _ := x.Dims()
	of = make([]int, n)
	seen := make(map[uint64]int, n) // the first group of each hash
	var more map[uint64][]int       // the further groups of a hash
	same := func(i, g int) bool {
		j := first[g]
		return (key == nil || key[j] == key[i]) && SameBits(x.RawRowView(i), x.RawRowView(j))
	}
	for i := range n {
		var h uint64
		if key != nil {
			h = RowHash(x.RawRowView(i), key[i])
		} else {
			h = RowHash(x.RawRowView(i))
		}
		of[i] = -1
		g0, ok := seen[h]
		if ok && same(i, g0) {
			of[i] = g0
			continue
		}
		if ok {
			for _, g := range more[h] {
				if same(i, g) {
					of[i] = g
					break
				}
			}
			if of[i] >= 0 {
				continue
			}
		}
		of[i] = len(first)
		if !ok {
			seen[h] = len(first)
		} else {
			if more == nil {
				more = map[uint64][]int{}
			}
			more[h] = append(more[h], len(first))
		}
		first = append(first, i)
	}
	return of, first
}

// SameBits reports whether a and b hold the same float64 bit patterns.
func SameBits(a, b []float64) bool {
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
