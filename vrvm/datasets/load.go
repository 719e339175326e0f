package datasets

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrNotDownloadable is wrapped by the error of Fetch for the data sets it
// cannot download: the sinc sets, the fixed subsets and splits and the
// real-world splits (their only source is the embedded copy).
var ErrNotDownloadable = errors.New("not downloadable")

// Number of fixed subsets and splits, and their sizes.
const (
	NumSincSets      = 25  // sets in each sinc file
	NumRipleySubsets = 10  // subsets in ripley_subsets100.csv
	RipleySubsetSize = 100 // rows in each Ripley subset
	NumBostonSplits  = 10  // splits in boston_splits.csv
	BostonTestSize   = 25  // test rows in each Boston split
)

// readFile reads the named normalised file from the data directory or,
// if the directory lacks it, from the embedded copy, checking its header
// and its number of rows.
func readFile(f file, labels map[string]map[string]float64) (*Table, error) {
	rc, name, err := openData(f.name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	t, err := ReadCSVOptions(rc, name, CSVOptions{Labels: labels, Columns: f.columns})
	if err != nil {
		return nil, err
	}
	if t.Len() != f.rows {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %d data rows, want %d", ErrRowCount, t.Len(), f.rows)}
	}
	return t, nil
}

// binary are the labels of a 0/1 class column.
var binary = map[string]float64{"0": 0, "1": 1}

// LoadRipley reads Ripley's synthetic two-class data (Ripley 1996): the
// training set ripley_train.csv (250 rows, 125 per class) and the test set
// ripley_test.csv (1000 rows, 500 per class) from the data directory. The
// inputs are xs and ys, the target yc ∈ {0, 1}.
//
// Like every loader, LoadRipley checks the header, the number of rows and
// every cell, and returns a *ParseError naming the file, the line and the
// column of the first problem. A file missing from the data directory is
// read from the copy embedded in this package.
func LoadRipley() (train, test *Dataset, err error) {
	return loadPair(ripleyTrainFile, ripleyTestFile, "yc", map[string]map[string]float64{"yc": binary})
}

// PimaLabels maps the text labels of the Pima target column "type" to
// numbers: "No" (not diabetic) to 0 and "Yes" to 1.
var PimaLabels = map[string]float64{"No": 0, "Yes": 1}

// LoadPima reads the Pima Indians diabetes data as split by Ripley (1996)
// (R package MASS, Pima.tr and Pima.te): pima_train.csv (200 rows, 68
// diabetic) and pima_test.csv (332 rows, 109 diabetic). The seven inputs are
// npreg, glu, bp, skin, bmi, ped and age; the target type is 1 for "Yes"
// (diabetic) and 0 for "No". Errors are as for LoadRipley.
func LoadPima() (train, test *Dataset, err error) {
	return loadPair(pimaTrainFile, pimaTestFile, "type", map[string]map[string]float64{"type": PimaLabels})
}

func loadPair(trf, tef file, target string, labels map[string]map[string]float64) (train, test *Dataset, err error) {
	t, err := readFile(trf, labels)
	if err != nil {
		return nil, nil, err
	}
	if train, err = t.Dataset(target); err != nil {
		return nil, nil, err
	}
	if t, err = readFile(tef, labels); err != nil {
		return nil, nil, err
	}
	if test, err = t.Dataset(target); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// LoadBoston reads the Boston housing data (Harrison & Rubinfeld 1978) from
// boston.csv: 506 rows, the 13 inputs CRIM, ZN, INDUS, CHAS, NOX, RM, AGE,
// DIS, RAD, TAX, PTRATIO, B and LSTAT, and the target MEDV (median house
// value in $1000s). Errors are as for LoadRipley.
func LoadBoston() (*Dataset, error) {
	t, err := readFile(bostonFile, nil)
	if err != nil {
		return nil, err
	}
	return t.Dataset("MEDV")
}

// SincSets reads the 25 fixed noisy sinc data sets of size n, n = 100
// (sinc_N100_25sets.csv) or n = 50 (sinc_N50_25sets.csv): set s is
// element s, with input column x and target t = sin(x)/x + N(0, 0.1²).
// These files were generated once and are fixed. Any other n is
// an error, and so is a set number that is not an integer in [0, 25) or a
// set without exactly n rows.
func SincSets(n int) ([]*Dataset, error) {
	var f file
	switch n {
	case 100:
		f = sinc100File
	case 50:
		f = sinc50File
	default:
		return nil, fmt.Errorf("datasets: SincSets(%d): the fixed sinc sets have 50 or 100 points", n)
	}
	t, err := readFile(f, nil)
	if err != nil {
		return nil, err
	}
	groups, err := groupRows(t, "set", NumSincSets, n)
	if err != nil {
		return nil, err
	}
	d, err := t.Select("t", "x")
	if err != nil {
		return nil, err
	}
	sets := make([]*Dataset, len(groups))
	for s, rows := range groups {
		sets[s] = d.Subset(rows)
	}
	return sets, nil
}

// RipleySubsets returns the 10 fixed subsets of 100 rows of the Ripley
// training set (ripley_subsets100.csv): element s lists the 0-based row
// numbers of subset s in increasing order. The paper trains on such 100-row
// subsets. The file is fixed. Row numbers outside [0, 250),
// repeated within a subset, or subsets of the wrong size are errors.
func RipleySubsets() ([][]int, error) {
	t, err := readFile(ripleySubsetsFile, nil)
	if err != nil {
		return nil, err
	}
	return indexGroups(t, "subset", NumRipleySubsets, RipleySubsetSize, ripleyTrainFile.rows)
}

// RipleySubset returns training subset s, 0 ≤ s < 10, of the Ripley
// training set as given by RipleySubsets.
func RipleySubset(s int) (*Dataset, error) {
	if s < 0 || s >= NumRipleySubsets {
		return nil, fmt.Errorf("datasets: RipleySubset(%d): subset out of range [0, %d)", s, NumRipleySubsets)
	}
	subsets, err := RipleySubsets()
	if err != nil {
		return nil, err
	}
	train, _, err := LoadRipley()
	if err != nil {
		return nil, err
	}
	return train.Subset(subsets[s]), nil
}

// BostonSplits returns the 10 fixed test sets of 25 rows of the Boston data
// (boston_splits.csv): element s lists the 0-based row numbers of split s's
// test set in increasing order; the other 481 rows are its training set.
// The file is fixed. Row numbers outside [0, 506), repeated
// within a split, or splits of the wrong size are errors.
func BostonSplits() ([][]int, error) {
	t, err := readFile(bostonSplitsFile, nil)
	if err != nil {
		return nil, err
	}
	return indexGroups(t, "split", NumBostonSplits, BostonTestSize, bostonFile.rows)
}

// BostonSplit returns the training set (481 rows) and test set (25 rows)
// of split s, 0 ≤ s < 10, of the Boston data as given by BostonSplits.
// Both keep the order of boston.csv.
func BostonSplit(s int) (train, test *Dataset, err error) {
	if s < 0 || s >= NumBostonSplits {
		return nil, nil, fmt.Errorf("datasets: BostonSplit(%d): split out of range [0, %d)", s, NumBostonSplits)
	}
	splits, err := BostonSplits()
	if err != nil {
		return nil, nil, err
	}
	d, err := LoadBoston()
	if err != nil {
		return nil, nil, err
	}
	return d.Exclude(splits[s]), d.Subset(splits[s]), nil
}

// cellError is a *ParseError about the cell of row i in column col of t.
func cellError(t *Table, i int, col string, err error) error {
	field := 0
	for j, c := range t.columns {
		if c == col {
			field = j + 1
		}
	}
	return &ParseError{File: t.name, Line: t.Line(i), Field: field, Column: col, Err: err}
}

// intCell returns the value of row i in column col of t as an integer in
// [0, n).
func intCell(t *Table, col []float64, i int, name string, n int) (int, error) {
	v := col[i]
	if v != math.Trunc(v) || v < 0 || v >= float64(n) {
		return 0, cellError(t, i, name, fmt.Errorf("%v is not an integer in [0, %d)", v, n))
	}
	return int(v), nil
}

// groupRows groups the rows of t by the integer group number in column
// name, which must lie in [0, groups); every group must have size rows.
func groupRows(t *Table, name string, groups, size int) ([][]int, error) {
	g, err := t.Column(name)
	if err != nil {
		return nil, err
	}
	out := make([][]int, groups)
	for i := range g {
		s, err := intCell(t, g, i, name, groups)
		if err != nil {
			return nil, err
		}
		if len(out[s]) == size {
			return nil, cellError(t, i, name, fmt.Errorf("%s %d has more than %d rows", name, s, size))
		}
		out[s] = append(out[s], i)
	}
	for s, rows := range out {
		if len(rows) != size {
			return nil, &ParseError{File: t.name, Column: name, Err: fmt.Errorf("%w: %s %d has %d rows, want %d", ErrRowCount, name, s, len(rows), size)}
		}
	}
	return out, nil
}

// indexGroups reads a file of (group, row) pairs: the row numbers, in
// [0, n) and distinct within a group, listed by group.
func indexGroups(t *Table, group string, groups, size, n int) ([][]int, error) {
	byGroup, err := groupRows(t, group, groups, size)
	if err != nil {
		return nil, err
	}
	r, err := t.Column("row")
	if err != nil {
		return nil, err
	}
	out := make([][]int, groups)
	for s, lines := range byGroup {
		seen := make(map[int]bool, size)
		for _, i := range lines {
			v, err := intCell(t, r, i, "row", n)
			if err != nil {
				return nil, err
			}
			if seen[v] {
				return nil, cellError(t, i, "row", fmt.Errorf("row %d repeats in %s %d", v, group, s))
			}
			seen[v] = true
			out[s] = append(out[s], v)
		}
		sort.Ints(out[s])
	}
	return out, nil
}
