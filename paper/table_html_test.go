package paper

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vrvm/vrvm/vrvm"
)

func testTable() *Table {
	return &Table{
		Number: 1, Title: "sinc <regression>", Setup: []string{"N = 100 & σ = 0.1"}, ErrorName: "RMS error", Regression: true,
		Rows: []Row{
			{Model: "SVM", Paper: Score{0.0519, 28.0, math.NaN()}},
			{Model: "VRVM", Paper: Score{0.0494, 7.4, 0.0943}, Measured: true, Ours: Score{0.0365, 6.2, 0.0951},
				Runs: []Run{{Status: vrvm.Converged}}, FitTime: 1200 * time.Millisecond},
		},
		Targets:   []Target{{What: "RMS", Value: 0.0365, Lo: math.Inf(-1), Hi: 0.06, Format: "%.4f"}},
		Notes:     []string{"a note"},
		Wall:      3 * time.Second,
		errFormat: "%.4f", noiseFormat: "%.4f",
	}
}

func TestTableHTML(t *testing.T) {
	h := testTable().HTML()
	for _, want := range []string{"<table>", "<th>Model</th>", "sinc &lt;regression&gt;", "N = 100 &amp; σ = 0.1",
		`<td style="text-align:right">0.0365</td>`, "<td>SVM</td>", "1 converged", "RMS 0.0365 ≤ 0.0600: met", "Wall time 3.0 s."} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "<regression>") || strings.Contains(h, "<script") {
		t.Error("HTML not escaped")
	}
	if n := strings.Count(h, "<tr>"); n != 3 {
		t.Errorf("%d rows, want header + 2", n)
	}
}

func TestTableString(t *testing.T) {
	s := testTable().String()
	lines := strings.Split(s, "\n")
	var grid []string
	for _, l := range lines {
		if strings.HasPrefix(l, "Model") || strings.HasPrefix(l, "SVM") || strings.HasPrefix(l, "VRVM") {
			grid = append(grid, l)
		}
	}
	if len(grid) != 3 {
		t.Fatalf("grid lines %q in\n%s", grid, s)
	}
	// Right-aligned numbers end in the same column as their header.
	col := strings.Index(grid[0], "RMS error") + len("RMS error")
	if got := strings.Index(grid[2], "0.0365") + len("0.0365"); got != col {
		t.Errorf("error column ends at %d, header at %d:\n%s", got, col, s)
	}
	if !strings.Contains(s, "Table 1: sinc <regression>") || !strings.Contains(grid[1], "–") {
		t.Errorf("text:\n%s", s)
	}
}
