package vrvm_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/vrvm/vrvm/vrvm"
)

// TestSummaries: every estimator displays readably, fitted and not: String
// in a few lines naming the type, kernel and status (no addresses), HTML
// as a two-column table of properties and values with one row per item of
// String (each configuration item, the status and each further line), the
// values escaped.
func TestSummaries(t *testing.T) {
	t.Parallel()
	x, y, labels := waveData(30)
	classes := make([]string, len(labels))
	for i, l := range labels {
		classes[i] = []string{"a<b", "c"}[int(l)]
	}
	for _, tc := range []struct {
		m   summarised
		fit func() error
	}{
		{m: &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 2}}},
		{m: &vrvm.RobustRegressor{Kernel: vrvm.Gaussian{Width: 2}}},
		{m: &vrvm.Classifier{Kernel: vrvm.Gaussian{Width: 2}}},
		{m: &vrvm.RVMRegressor{Kernel: vrvm.Gaussian{Width: 2}}},
		{m: &vrvm.RVMClassifier{Kernel: vrvm.Gaussian{Width: 2}}},
		{m: &vrvm.MultiClassifier{Kernel: vrvm.Gaussian{Width: 2}}},
	} {
		name := strings.TrimPrefix(strings.Fields(tc.m.String())[0], "vrvm.")
		check := func(state string, status string, rows int) {
			s, h := tc.m.String(), tc.m.HTML()
			if !strings.HasPrefix(s, "vrvm."+name+" (") || !strings.Contains(s, "kernel Gaussian(width=2)") || !strings.Contains(s, "): "+status) ||
				strings.Contains(s, "0x") || strings.Count(s, "\n") > 5 {
				t.Errorf("%s %s: String %q", state, name, s)
			}
			if n := strings.Count(s, "\n"); n != rows {
				t.Errorf("%s %s: %d lines after the first, want %d: %q", state, name, n, rows, s)
			}
			if !strings.HasPrefix(h, `<table class="vrvm-summary"><caption`) || !strings.Contains(h, "<b>vrvm."+name+"</b>") || strings.Contains(h, "<script") {
				t.Errorf("%s %s: HTML %q", state, name, h)
			}
			cells := regexp.MustCompile(`<tr><th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td></tr>`).FindAllStringSubmatch(h, -1)
			// Configuration items (after the name, in brackets), the status,
			// each further line of String (a line may hold two items).
			head := s[:strings.Index(s, "): ")]
			config := strings.Count(head, ", ") + 1
			items := config + 1 + strings.Count(s, "\n") + strings.Count(s[strings.Index(s, "): "):], ", full-model bound")
			if len(cells) != items || strings.Count(h, "<tr>") != items {
				t.Errorf("%s %s: %d HTML rows, want %d for %q:\n%s", state, name, len(cells), items, s, h)
			}
			got := map[string]string{}
			for _, c := range cells {
				got[c[1]] = c[2]
			}
			if got["kernel"] != "Gaussian(width=2)" || !strings.HasPrefix(got["status"], status) {
				t.Errorf("%s %s: HTML kernel %q, status %q", state, name, got["kernel"], got["status"])
			}
			if rows > 0 && got["relevance vectors"] == "" {
				t.Errorf("%s %s: no relevance vectors row in %s", state, name, h)
			}
		}
		check("unfitted", "not fitted", 0)
		var err error
		switch m := tc.m.(type) {
		case *vrvm.MultiClassifier:
			err = m.Fit(x, classes)
		case vrvm.Estimator:
			tt := y
			if m.Task() == vrvm.Classification {
				tt = labels
			}
			err = m.FitContext(context.Background(), x, tt)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines := 2
		switch name {
		case "Regressor", "RobustRegressor", "RVMRegressor", "MultiClassifier":
			lines = 3
		}
		check("fitted", "converged", lines)
		if name == "MultiClassifier" && !strings.Contains(tc.m.HTML(), "a&lt;b, c") {
			t.Errorf("MultiClassifier: class names not escaped in %s", tc.m.HTML())
		}
		// Cancelled before the first iteration: Canceled, no posterior.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		switch m := tc.m.(type) {
		case *vrvm.MultiClassifier:
			err = m.FitContext(ctx, x, classes)
		case vrvm.Estimator:
			tt := y
			if m.Task() == vrvm.Classification {
				tt = labels
			}
			err = m.FitContext(ctx, x, tt)
		}
		if err == nil {
			t.Fatalf("%s: a cancelled fit returned no error", name)
		}
		check("cancelled", "canceled", 0)
	}
}
