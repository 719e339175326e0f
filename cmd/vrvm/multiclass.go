package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// classTarget reads a classification target given without -labels (read
// as text): if every value is the number 0 or 1 it returns them as t, for
// the binary model as before; otherwise it returns the class label of
// each row in labels, for the multi-class model, and t is 0 for a row
// with a label. A missing value (empty, NA, NaN) is NaN in t either way.
// Numeric labels must be integers (2.5 is an error naming its line) and
// are written canonically ("1.0" and "1" are class "1"); text labels are
// used as they are.
func classTarget(tab *table, target string) (t []float64, labels []string, err error) {
	col := tab.text[target]
	t = make([]float64, len(col))
	nums := make([]float64, len(col))
	numeric, binary := true, true
	for i, s := range col {
		if s == "" {
			nums[i] = math.NaN()
			continue
		}
		v, err := datasets.ParseNumber(s)
		if err != nil {
			numeric, binary = false, false
			continue
		}
		nums[i] = v
		if v != 0 && v != 1 {
			binary = false
		}
	}
	if binary {
		return nums, nil, nil
	}
	labels = make([]string, len(col))
	for i, s := range col {
		switch {
		case s == "":
			t[i] = math.NaN()
		case !numeric:
			labels[i] = s
		case nums[i] != math.Trunc(nums[i]) || math.Abs(nums[i]) > 1<<53:
			return nil, nil, &datasets.ParseError{File: tab.name, Line: tab.lines[i], Field: tab.field(target), Column: target,
				Err: fmt.Errorf("%w %s: a numeric class label must be an integer (or write the labels as text)", datasets.ErrLabel, quotePrefix([]byte(s)))}
		default:
			labels[i] = strconv.FormatFloat(nums[i], 'f', -1, 64)
		}
	}
	return t, labels, nil
}

// distinct returns the distinct values of s in order of first appearance.
func distinct(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
