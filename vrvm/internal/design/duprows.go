package design

import (
	"math"

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
// within TwinTol of an earlier one. Each pair is compared until the
// distance exceeds the tolerance, which for distinct functions is within
// the first few elements.
func NearTwins(b *mat.Dense, first []int, tw []bool) {
	for a, i := range first {
		if tw[i] {
			continue
		}
		ri := b.RawRowView(i)
		var ni float64
		for _, v := range ri {
			ni += v * v
		}
		lim := TwinTol * TwinTol * ni
		for _, j := range first[a+1:] {
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
