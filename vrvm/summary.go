package vrvm

import (
	"fmt"
	"html"
	"strings"
)

// A summary is what an estimator's String and HTML show: its name, its
// configuration (kernel, solver), its status and, once fitted, what the
// fit found, each item a property and its value.
type summary struct {
	name   string
	config []summaryRow // "kernel", "solver", …: String writes them in brackets after the name
	status string       // "not fitted", "converged after 12 iterations"
	rows   []summaryRow // one line each in String, after the first
}

// A summaryRow is a property and its value; String writes key+sep+value,
// on the line of the row before if sameLine (after ", ").
type summaryRow struct {
	key, sep, value string
	sameLine        bool
}

// row is a summaryRow with a space between key and value.
func row(key, value string) summaryRow { return summaryRow{key: key, sep: " ", value: value} }

// String writes the summary in a few lines: "name (config): status", then
// each row indented.
func (s summary) String() string {
	var b strings.Builder
	b.WriteString(s.name)
	if len(s.config) > 0 {
		b.WriteString(" (")
		for i, c := range s.config {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.key + c.sep + c.value)
		}
		b.WriteString(")")
	}
	b.WriteString(": " + s.status)
	for _, r := range s.rows {
		if r.sameLine {
			b.WriteString(", ")
		} else {
			b.WriteString("\n  ")
		}
		b.WriteString(r.key + r.sep + r.value)
	}
	return b.String()
}

// HTML renders the summary as a two-column HTML table of properties and
// values for notebooks (a Jupyter kernel shows a value's HTML method as
// text/html and its String as the plain-text fallback): the name as the
// caption, then the configuration, the status and what the fit found, a
// row each. The table has no scripts or styles beyond alignment.
func (s summary) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="vrvm-summary"><caption style="text-align:left"><b>`)
	b.WriteString(html.EscapeString(s.name))
	b.WriteString("</b></caption>")
	cell := func(key, value string) {
		fmt.Fprintf(&b, `<tr><th style="text-align:left">%s</th><td style="text-align:left">%s</td></tr>`,
			html.EscapeString(key), html.EscapeString(value))
	}
	for _, c := range s.config {
		if c.key == "" {
			cell("basis", c.value) // "design matrix"
			continue
		}
		cell(c.key, c.value)
	}
	cell("status", s.status)
	for _, r := range s.rows {
		cell(r.key, r.value)
	}
	b.WriteString("</table>")
	return b.String()
}

// describe summarises an estimator: its name and configuration, then,
// once fitted, what the fit found, and the extra rows.
func (f *fitted) describe(name string, k Kernel, solver string, extra ...summaryRow) summary {
	s := summary{name: name}
	if _, ok := k.(learnedWidth); ok && f.hasPosterior() && f.b.kernel == nil {
		k = nil // fitted to a design matrix
	}
	if k == nil && f.hasPosterior() && f.b.kernel == nil {
		s.config = append(s.config, summaryRow{value: "design matrix"})
	} else {
		if k == nil {
			k = defaultKernel
		}
		if _, dflt := k.(learnedWidth); (f.learnTrace != nil || dflt) && f.hasPosterior() {
			k = f.b.kernel // the learned or chosen kernel
		}
		s.config = append(s.config, row("kernel", kernelString(k)))
	}
	if solver != "" {
		s.config = append(s.config, row("solver", solver))
	}
	if !f.hasPosterior() {
		s.status = f.status.String()
		return s
	}
	s.status = fmt.Sprintf("%s after %d iterations", f.status, f.iters)
	rv := fmt.Sprintf("%d of %d active functions", len(f.RelevanceVectors()), len(f.mu))
	if f.HasBias() {
		rv += " (bias active)"
	}
	s.rows = append(s.rows, row("relevance vectors", rv), row("bound", fmt.Sprintf("%.6g", f.LowerBound())),
		summaryRow{key: "full-model bound", sep: " ", value: fmt.Sprintf("%.6g", f.full), sameLine: true})
	if l := f.learnLine(); l != "" {
		key, value, _ := strings.Cut(l, " ") // "width chosen by …", "kernel learned by …"
		s.rows = append(s.rows, row(key, value))
	}
	s.rows = append(s.rows, extra...)
	return s
}
