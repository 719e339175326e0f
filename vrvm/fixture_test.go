package vrvm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fixture is the part of a reference fixture (../shared/fixtures) the tests use.
type fixture struct {
	Name   string          `json:"name"`
	X      json.RawMessage `json:"x"`
	T      []float64       `json:"t"`
	XTest  json.RawMessage `json:"x_test"`
	Kernel struct {
		R float64 `json:"r"`
	} `json:"kernel"`
	Convergence struct {
		NIter int `json:"n_iter"`
	} `json:"convergence"`
	LowerBound      float64                   `json:"lower_bound"`
	Terms           map[string]float64        `json:"lower_bound_terms"`
	First10         []float64                 `json:"lower_bound_first10"`
	Mu              []float64                 `json:"mu"`
	DiagSigma       []float64                 `json:"diag_Sigma"`
	AlphaMean       []float64                 `json:"alpha_mean"`
	TauMean         float64                   `json:"tau_mean"`
	NoiseSD         float64                   `json:"noise_sd_estimate"`
	PredMean        []float64                 `json:"pred_mean"`
	PredVar         []float64                 `json:"pred_var"`
	Xi              []float64                 `json:"xi"`
	ActMean         []float64                 `json:"pred_activation_mean"`
	ActVar          []float64                 `json:"pred_activation_var"`
	ProbPlugin      []float64                 `json:"prob_plugin"`
	ProbModerated   []float64                 `json:"prob_moderated"`
	IterationsUntil map[string]map[string]int `json:"iterations_until_within"`
}

// sharedDir returns ../shared/<sub> relative to the module root. Outside CI
// a missing directory skips the test; in CI (CI=true) it fails it.
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared material missing: %v", err)
		}
		t.Skipf("shared material not found at %s", dir)
	}
	return dir
}

func loadFixture(t testing.TB, name string) (*fixture, *mat.Dense, *mat.Dense) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir(t, "fixtures"), name))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f, matrixFromJSON(t, f.X), matrixFromJSON(t, f.XTest)
}

// matrixFromJSON reads either a list of numbers (one column) or a list of rows.
func matrixFromJSON(t testing.TB, raw json.RawMessage) *mat.Dense {
	t.Helper()
	var rows [][]float64
	if err := json.Unmarshal(raw, &rows); err == nil {
		d := mat.NewDense(len(rows), len(rows[0]), nil)
		for i, r := range rows {
			d.SetRow(i, r)
		}
		return d
	}
	var col []float64
	if err := json.Unmarshal(raw, &col); err != nil {
		t.Fatal(err)
	}
	return mat.NewDense(len(col), 1, col)
}
