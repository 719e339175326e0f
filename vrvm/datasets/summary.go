package datasets

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// The HTML summary of a data set shows its first summaryRows rows and at
// most summaryCols input columns, the last ones elided.
const (
	summaryRows = 5
	summaryCols = 8
)

// String summarises d on one line: its size, the names of its columns and
// of its target. A notebook kernel and the REPL print a value by its
// String method; HTML adds the first rows.
func (d *Dataset) String() string {
	if d == nil {
		return "datasets.Dataset(nil)"
	}
	return d.caption()
}

// HTML is String as the caption of an HTML table of the first rows, for
// notebooks (a Jupyter kernel shows a value's HTML method as text/html): a
// header of column names, at most 5 rows and 8 input columns, and the
// number of rows not shown.
func (d *Dataset) HTML() string {
	if d == nil {
		return "<code>datasets.Dataset(nil)</code>"
	}
	cols, rows, more := d.summary()
	var b strings.Builder
	b.WriteString(`<table class="vrvm-dataset"><caption style="text-align:left">`)
	b.WriteString(html.EscapeString(d.caption()))
	b.WriteString("</caption>")
	if len(rows) > 0 {
		b.WriteString("<thead><tr><th></th>")
		for _, c := range cols {
			b.WriteString("<th>" + html.EscapeString(c) + "</th>")
		}
		b.WriteString("</tr></thead><tbody>")
		for _, r := range rows {
			b.WriteString("<tr><th>" + r[0] + "</th>")
			for _, v := range r[1:] {
				b.WriteString("<td>" + html.EscapeString(v) + "</td>")
			}
			b.WriteString("</tr>")
		}
		if more > 0 {
			fmt.Fprintf(&b, `<tr><td colspan="%d" style="text-align:left">… (%d more rows)</td></tr>`, len(cols)+1, more)
		}
		b.WriteString("</tbody>")
	}
	b.WriteString("</table>")
	return b.String()
}

// caption returns the first line of the summary: "datasets.Dataset: 50
// rows × 1 input (x), target t".
func (d *Dataset) caption() string {
	n, dim := d.dims()
	names := d.columnNames(dim)
	shown := names
	if len(shown) > summaryCols {
		shown = append(shown[:summaryCols:summaryCols], "…")
	}
	inputs := "inputs"
	if dim == 1 {
		inputs = "input"
	}
	rows := "rows"
	if n == 1 {
		rows = "row"
	}
	s := fmt.Sprintf("datasets.Dataset: %d %s × %d %s", n, rows, dim, inputs)
	if dim > 0 {
		s += " (" + strings.Join(shown, ", ") + ")"
	}
	return s + ", target " + d.targetName()
}

// dims returns the number of rows and inputs, 0 for a data set without X.
func (d *Dataset) dims() (n, dim int) {
	if d.X == nil || d.X.IsEmpty() {
		return len(d.T), 0
	}
	return d.X.Dims()
}

// columnNames returns the names of the dim input columns: Columns, or
// x1, x2, … where a name is missing.
func (d *Dataset) columnNames(dim int) []string {
	names := make([]string, dim)
	for j := range names {
		if j < len(d.Columns) && d.Columns[j] != "" {
			names[j] = d.Columns[j]
		} else {
			names[j] = "x" + strconv.Itoa(j+1)
		}
	}
	return names
}

func (d *Dataset) targetName() string {
	if d.Target == "" {
		return "t"
	}
	return d.Target
}

// summary returns the header of the table (the shown input columns, "…"
// for the elided ones, and the target), its rows (the row number first),
// and the number of rows not shown.
func (d *Dataset) summary() (cols []string, rows [][]string, more int) {
	n, dim := d.dims()
	shownCols := min(dim, summaryCols)
	cols = d.columnNames(dim)[:shownCols]
	if dim > shownCols {
		cols = append(cols, "…")
	}
	cols = append(cols, d.targetName())
	shownRows := min(n, summaryRows)
	if dim == 0 {
		shownRows = min(shownRows, len(d.T))
	}
	for i := range shownRows {
		r := []string{strconv.Itoa(i)}
		for j := range shownCols {
			r = append(r, format(d.X.At(i, j)))
		}
		if dim > shownCols {
			r = append(r, "…")
		}
		t := "–"
		if i < len(d.T) {
			t = format(d.T[i])
		}
		rows = append(rows, append(r, t))
	}
	return cols, rows, n - shownRows
}

// format writes v with 4 significant digits.
func format(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
