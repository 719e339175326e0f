package paper

import (
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"
)

// The HTML and plain-text forms of a Table, for notebooks: a Jupyter
// kernel shows a value with an HTML method as text/html and its String
// (table.go, the writer of Markdown too) as the text/plain fallback. HTML is shown in untrusted notebooks too
// (sanitised), where text/markdown is not.

// cells returns the header and the rows of the table's main grid, as
// Markdown shows them; right lists the right-aligned columns.
func (t *Table) cells() (header []string, rows [][]string, right []bool) {
	const dash = "–"
	num := func(format string, v float64) string {
		if math.IsNaN(v) {
			return dash
		}
		return fmt.Sprintf(format, v)
	}
	header = []string{"Model", t.ErrorName, "paper", "# kernels", "paper"}
	right = []bool{false, true, true, true, true}
	if t.Regression {
		header = append(header, "noise estimate", "paper")
		right = append(right, true, true)
	}
	header = append(header, "fits", "fit time (sum)")
	right = append(right, false, true)
	for _, r := range t.Rows {
		ours, kern, noise, fit := dash, dash, dash, dash
		if r.Measured {
			ours = num(t.errFormat, r.Ours.Error)
			kern = num("%.1f", r.Ours.Kernels)
			noise = num(t.noiseFormat, r.Ours.Noise)
			fit = seconds(r.FitTime)
		}
		row := []string{r.Model, ours, num(t.errFormat, r.Paper.Error), kern, num("%.1f", r.Paper.Kernels)}
		if t.Regression {
			row = append(row, noise, num(t.noiseFormat, r.Paper.Noise))
		}
		rows = append(rows, append(row, r.Statuses(), fit))
	}
	return header, rows, right
}

// studyCells returns the grid of the kernel-width choices (Selection).
func studyCells(rows []StudyRow) (header []string, out [][]string) {
	header = []string{"Problem", "Model", "widths tried", "CV = bound", "chosen by CV", "chosen by bound", "test error at CV choice", "at bound choice", "fit time (sum)"}
	for _, r := range rows {
		out = append(out, []string{r.Problem, r.Model, fmt.Sprint(r.Grid), fmt.Sprintf("%d/%d", r.Agree, r.Sets),
			tally(r.ByCV, r.Grid), tally(r.ByBound, r.Grid), fmt.Sprintf(r.errFormat, r.ErrorCV), fmt.Sprintf(r.errFormat, r.ErrorBound), seconds(r.Time)})
	}
	return header, out
}

// HTML renders the table like Markdown, as an HTML fragment (no scripts
// or styles).
func (t *Table) HTML() string {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, "<div class=\"vrvm-table\">\n<h4>Table %d: %s</h4>\n", t.Number, e(t.Title))
	list := func(items []string) {
		b.WriteString("<ul>\n")
		for _, s := range items {
			fmt.Fprintf(&b, "<li>%s</li>\n", e(s))
		}
		b.WriteString("</ul>\n")
	}
	grid := func(header []string, rows [][]string, right []bool) {
		align := func(j int) string {
			if j < len(right) && right[j] {
				return ` style="text-align:right"`
			}
			return ""
		}
		b.WriteString("<table>\n<thead><tr>")
		for j, h := range header {
			fmt.Fprintf(&b, "<th%s>%s</th>", align(j), e(h))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, r := range rows {
			b.WriteString("<tr>")
			for j, c := range r {
				fmt.Fprintf(&b, "<td%s>%s</td>", align(j), e(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n")
	}
	if len(t.Setup) > 0 {
		list(t.Setup)
	}
	grid(t.cells())
	if len(t.Selection) > 0 {
		b.WriteString("<p>Kernel widths chosen on the training rows:</p>\n")
		h, rows := studyCells(t.Selection)
		grid(h, rows, nil)
	}
	if len(t.Targets) > 0 {
		b.WriteString("<p>Targets:</p>\n")
		var s []string
		for _, g := range t.Targets {
			s = append(s, g.String())
		}
		list(s)
	}
	if len(t.Notes) > 0 {
		b.WriteString("<p>Notes:</p>\n")
		list(t.Notes)
	}
	fmt.Fprintf(&b, "<p>Wall time %s.</p>\n</div>\n", seconds(t.Wall))
	return b.String()
}

// writeGrid writes header and rows in columns padded to their widths (in
// runes), right-aligning the columns marked in right.
func writeGrid(b *strings.Builder, header []string, rows [][]string, right []bool) {
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for j, c := range r {
			if j < len(width) {
				width[j] = max(width[j], utf8.RuneCountInString(c))
			}
		}
	}
	line := func(r []string) {
		for j, c := range r {
			if j >= len(width) {
				break
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			if j > 0 {
				b.WriteString("  ")
			}
			if j < len(right) && right[j] {
				b.WriteString(pad + c)
			} else if j == len(r)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
		}
		b.WriteString("\n")
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
}
