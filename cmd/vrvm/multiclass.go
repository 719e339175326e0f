package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/vrvm/vrvm/vrvm/datasets"
)

// classTarget reads a classification target given without -labels: if
// every value is the number 0 or 1 it returns them as t (the binary
// model, as before); otherwise it returns one class label per row for the
// multi-class model (t is then 0 for a row with a label, NaN for a missing
// one). Numbers must be integers (2.5 is an error naming its line); they
// are written canonically ("1.0" is class "1"); text labels are used as
// they are.
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
		v, err := parseNumber(s)
		if err != nil || math.IsNaN(v) {
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
			continue
		case !numeric:
			labels[i] = s
		case math.IsInf(nums[i], 0) || nums[i] != math.Trunc(nums[i]):
			return nil, nil, &datasets.ParseError{File: tab.name, Line: tab.lines[i], Field: tab.field(target), Column: target,
				Err: fmt.Errorf("%w %s: a numeric class label must be an integer", datasets.ErrLabel, quotePrefix([]byte(s)))}
		default:
			labels[i] = strconv.FormatFloat(nums[i], 'f', -1, 64)
		}
	}
	return t, labels, nil
}
