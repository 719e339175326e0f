package paper

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vrvm/vrvm/vrvm"
)

// Table is one of the paper's Tables 1–4, measured and quoted.
type Table struct {
	Number int
	Title  string
	// Setup describes the data, preprocessing, kernels, error measure and
	// fit settings, one item per line.
	Setup []string
	// ErrorName names the error measure, e.g. "RMS error".
	ErrorName string
	// Regression is true for the tables with a noise estimate.
	Regression bool
	// Rows are SVM (quoted from the paper only), RVM and VRVM.
	Rows []Row
	// Targets are the acceptance targets of the VRVM row.
	Targets []Target
	// Selection holds the kernel choices made by cross-validation for this
	// table (Table 4), with the lower bound's choice beside them.
	Selection []StudyRow
	// Notes explain the results, for example a missed target.
	Notes []string
	// Wall is the wall-clock time of the experiment.
	Wall time.Duration

	errFormat   string // format of errors, e.g. "%.4f"
	noiseFormat string
}

// Row is one model's line of a table.
type Row struct {
	Model string // "SVM", "RVM" or "VRVM"
	// Paper is the line of the paper's table; Noise is NaN where the
	// paper gives none.
	Paper Score
	// Measured is false for the SVM, whose line is quoted only.
	Measured bool
	// Ours is the mean over Runs.
	Ours Score
	Runs []Run
	// FitTime is the summed duration of the fits of Runs (with the
	// cross-validation fits, for Table 4).
	FitTime time.Duration
}

// Score is a table line: the error measure, the number of kernels and the
// noise estimate (NaN for classification), averaged over the data sets.
type Score struct {
	Error, Kernels, Noise float64
}

// Run is one fit evaluated on its test data.
type Run struct {
	Set        int    // data set, subset or split number
	Kernel     string // the kernel used
	Error      float64
	Kernels    int     // relevance vectors, bias not counted
	Noise      float64 // noise standard deviation estimate; NaN for classification
	Status     vrvm.Status
	Iterations int
	Time       time.Duration
}

// Target is an acceptance target: Lo ≤ Value ≤ Hi.
type Target struct {
	What   string
	Value  float64
	Lo, Hi float64 // −Inf or +Inf for one-sided targets
	Format string  // format of Value, Lo and Hi
}

// Met reports whether the target is met.
func (t Target) Met() bool { return t.Value >= t.Lo && t.Value <= t.Hi }

func (t Target) String() string {
	f := func(v float64) string { return fmt.Sprintf(t.Format, v) }
	var want string
	switch {
	case math.IsInf(t.Lo, -1):
		want = "≤ " + f(t.Hi)
	case math.IsInf(t.Hi, 1):
		want = "≥ " + f(t.Lo)
	default:
		want = "in " + f(t.Lo) + "–" + f(t.Hi)
	}
	verdict := "met"
	if !t.Met() {
		verdict = "MISSED"
	}
	return fmt.Sprintf("%s %s %s: %s", t.What, f(t.Value), want, verdict)
}

// mean returns the score averaged over runs.
func mean(runs []Run) Score {
	var s Score
	for _, r := range runs {
		s.Error += r.Error
		s.Kernels += float64(r.Kernels)
		s.Noise += r.Noise
	}
	n := float64(len(runs))
	return Score{s.Error / n, s.Kernels / n, s.Noise / n}
}

// Statuses summarises how the fits of the row ended, e.g.
// "23 converged, 2 iteration limit reached".
func (r *Row) Statuses() string {
	if !r.Measured {
		return "quoted from the paper"
	}
	counts := map[vrvm.Status]int{}
	for _, run := range r.Runs {
		counts[run.Status]++
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d %v", counts[s], s))
	}
	return strings.Join(parts, ", ")
}

// Markdown renders the table with its setup, targets and notes.
func (t *Table) Markdown() string { return t.text(true) }

// String renders the table as plain text with aligned columns.
func (t *Table) String() string { return t.text(false) }

// text renders the table as Markdown or as plain text with aligned
// columns.
func (t *Table) text(markdown bool) string {
	title, bullet, grid := "Table %d: %s\n", "  - ", writeGrid
	if markdown {
		title, bullet, grid = "### Table %d: %s\n\n", "- ", writeMarkdownGrid
	}
	var b strings.Builder
	fmt.Fprintf(&b, title, t.Number, t.Title)
	for _, s := range t.Setup {
		fmt.Fprintf(&b, "%s%s\n", bullet, s)
	}
	b.WriteString("\n")
	h, rows, right := t.cells()
	grid(&b, h, rows, right)
	if len(t.Selection) > 0 {
		b.WriteString("\nKernel widths chosen on the training rows:\n")
		if markdown {
			b.WriteString("\n")
			writeStudy(&b, t.Selection) // with the test error at every width
		} else {
			h, rows := studyCells(t.Selection)
			writeGrid(&b, h, rows, nil)
		}
	}
	t.writeTail(&b, bullet)
	return b.String()
}

// writeMarkdownGrid writes header and rows as a Markdown table,
// right-aligning the columns marked in right.
func writeMarkdownGrid(b *strings.Builder, header []string, rows [][]string, right []bool) {
	fmt.Fprintf(b, "| %s |\n|", strings.Join(header, " | "))
	for j := range header {
		if j < len(right) && right[j] {
			b.WriteString("--:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
	}
}

// writeTail writes the targets, the notes and the wall time, each list
// item behind bullet.
func (t *Table) writeTail(b *strings.Builder, bullet string) {
	if len(t.Targets) > 0 {
		b.WriteString("\nTargets:\n")
		for _, g := range t.Targets {
			fmt.Fprintf(b, "%s%v\n", bullet, g)
		}
	}
	if len(t.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range t.Notes {
			fmt.Fprintf(b, "%s%s\n", bullet, n)
		}
	}
	fmt.Fprintf(b, "\nWall time %s.\n", seconds(t.Wall))
}

// Missed returns the targets that are not met.
func (t *Table) Missed() []Target {
	var m []Target
	for _, g := range t.Targets {
		if !g.Met() {
			m = append(m, g)
		}
	}
	return m
}

// Row returns the row of the named model, or nil.
func (t *Table) Row(model string) *Row {
	for i := range t.Rows {
		if t.Rows[i].Model == model {
			return &t.Rows[i]
		}
	}
	return nil
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}

var nan = math.NaN()
