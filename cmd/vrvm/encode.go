package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm"
	"github.com/vrvm/vrvm/vrvm/datasets"
)

var nan = math.NaN()

// missingCounts counts missing cells by column, for the report on stderr.
type missingCounts struct {
	rows  int            // rows with at least one missing cell
	cells map[string]int // missing cells by column
}

func (m *missingCounts) add(col string) {
	if m.cells == nil {
		m.cells = map[string]int{}
	}
	m.cells[col]++
}

// String lists the columns with their counts: `"x" 2, "sex" 1`.
func (m *missingCounts) String() string {
	cols := make([]string, 0, len(m.cells))
	for c := range m.cells {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("%q %d", c, m.cells[c])
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// unseenError is the error of a category not seen in training.
func unseenError(t *table, row int, col, value string, levels []string) error {
	return &datasets.ParseError{File: t.name, Line: t.lines[row], Field: t.field(col), Column: col,
		Err: fmt.Errorf("category %q was not seen in training (categories %s); predict -unseen zero encodes it as all zeros", value, strings.Join(levels, ", "))}
}

// missingCellError is the error of a missing cell under the error rule.
func missingCellError(t *table, row int, col, hint string) error {
	return &datasets.ParseError{File: t.name, Line: t.lines[row], Field: t.field(col), Column: col,
		Err: fmt.Errorf("%w%s", datasets.ErrMissing, hint)}
}

// encodeRows builds the raw (unstandardised) features of the given rows
// of t: numeric inputs as they are, categorical inputs one-hot over
// b.Categories. Missing cells follow b.Missing: an error (hint is added
// to it), a row marked in drop (its features left zero), or the fill
// value. An unseen category is an error, or all zeros if unseenZero.
func encodeRows(b *cliMeta, t *table, rows []int, unseenZero bool, hint string) (x *mat.Dense, drop []bool, miss missingCounts, unseen int, err error) {
	d := b.features()
	x = mat.NewDense(len(rows), d, nil)
	drop = make([]bool, len(rows))
	// Each input's columns and rules, looked up once.
	type input struct {
		name   string
		num    []float64
		text   []string
		levels []string
		index  map[string]int
	}
	in := make([]input, len(b.Inputs))
	for k, c := range b.Inputs {
		in[k] = input{name: c, num: t.num[c], text: t.text[c], levels: b.Categories[c]}
		if in[k].levels != nil {
			in[k].index = make(map[string]int, len(in[k].levels))
			for l, v := range in[k].levels {
				in[k].index[v] = l
			}
		}
	}
	for i, r := range rows {
		row := x.RawRowView(i)
		j := 0
		rowMissing := false
		for _, inp := range in {
			c := inp.name
			if levels := inp.levels; levels != nil {
				s := inp.text[r]
				if s == "" {
					switch b.Missing {
					case missingImpute:
						s = b.ImputeMode[c]
					case missingDrop:
						miss.add(c)
						rowMissing = true
						j += len(levels)
						continue
					default:
						return nil, nil, miss, 0, missingCellError(t, r, c, hint)
					}
					miss.add(c)
				}
				k, ok := inp.index[s]
				if ok {
					row[j+k] = 1
				} else if unseenZero {
					unseen++
				} else {
					return nil, nil, miss, 0, unseenError(t, r, c, s, levels)
				}
				j += len(levels)
				continue
			}
			v := inp.num[r]
			if math.IsNaN(v) {
				switch b.Missing {
				case missingImpute:
					v = b.ImputeMean[c]
				case missingDrop:
					rowMissing = true
					v = 0
				default:
					return nil, nil, miss, 0, missingCellError(t, r, c, hint)
				}
				miss.add(c)
			}
			row[j] = v
			j++
		}
		if rowMissing {
			drop[i] = true
			miss.rows++
		}
	}
	return x, drop, miss, unseen, nil
}

// featureNames names the features: the column, or column=level.
func featureNames(b *cliMeta) []string {
	var names []string
	for _, c := range b.Inputs {
		if levels, ok := b.Categories[c]; ok {
			for _, l := range levels {
				names = append(names, c+"="+l)
			}
		} else {
			names = append(names, c)
		}
	}
	return names
}

// oneHot marks the features that are one-hot indicators.
func oneHot(b *cliMeta) []bool {
	var hot []bool
	for _, c := range b.Inputs {
		if levels, ok := b.Categories[c]; ok {
			for range levels {
				hot = append(hot, true)
			}
		} else {
			hot = append(hot, false)
		}
	}
	return hot
}

// constantFeatures returns the names of the columns the scaling s found
// constant: one value in every row.
func constantFeatures(s *datasets.Scaling, names []string) []string {
	var out []string
	for _, j := range s.Constant() {
		out = append(out, names[j])
	}
	return out
}

// quoteList returns the first max names, quoted and joined by commas,
// with the number of the others: `"a", "b" and 3 more`. It names one
// input as `input "a" is` and several as `inputs "a", "b" are`.
func quoteList(names []string, max int) string {
	q := make([]string, 0, max)
	for i, n := range names {
		if i == max {
			break
		}
		q = append(q, strconv.Quote(n))
	}
	l := strings.Join(q, ", ")
	if len(names) > max {
		l += fmt.Sprintf(" and %d more", len(names)-max)
	}
	if len(names) == 1 {
		return "input " + l + " is"
	}
	return "inputs " + l + " are"
}

// targetScaleError returns an error naming the regression target column
// if its standard deviation sd is one whose square (the variance, and the
// scale of the predictive variance in the target's units) overflows or
// underflows float64, as vrvm.ErrTargetScale; nil otherwise.
func targetScaleError(name string, sd float64) error {
	if v := sd * sd; math.IsInf(v, 0) || v < 0x1p-1022 {
		return fmt.Errorf("target column %q (standard deviation %g): %w", name, sd, vrvm.ErrTargetScale)
	}
	return nil
}

// standardizeInPlace maps x to (x − mean)/sd column by column.
func standardizeInPlace(x *mat.Dense, mean, sd []float64) {
	n, d := x.Dims()
	for i := range n {
		row := x.RawRowView(i)
		for j := range d {
			row[j] = (row[j] - mean[j]) / sd[j]
		}
	}
}
