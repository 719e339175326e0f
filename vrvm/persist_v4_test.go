package vrvm

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLoadVersion3 loads model files written by the library before
// version 4 of the format (testdata/v3: a low-rank sinc Regressor with its
// floor, a Regressor in the exact form with its floor, a Classifier), and
// checks that each predicts what the writing library predicted (the
// .pred.json beside it: the means exactly, the variances to rounding,
// 1e-12 relative, since the floor's product sums in another order), and
// that saved again (version 4) and loaded it predicts the same from a
// smaller file.
func TestLoadVersion3(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sinc-lowrank", "exact3", "classifier3"} {
		old, err := os.ReadFile(filepath.Join("testdata", "v3", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join("testdata", "v3", name+".pred.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			X         [][]float64
			Mean, Var []float64
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		x := mat.NewDense(len(want.X), len(want.X[0]), nil)
		for i, r := range want.X {
			x.SetRow(i, r)
		}
		m, err := Load(bytes.NewReader(old))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b bytes.Buffer
		if err := SaveMeta(&b, m, nil); err != nil {
			t.Fatal(err)
		}
		m2, err := Load(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%s saved again: %v", name, err)
		}
		for _, e := range []Estimator{m, m2} {
			var mean, v []float64
			switch e := e.(type) {
			case *Regressor:
				mean, v, err = e.Predict(x)
			case *Classifier:
				mean, v, err = e.Latent(x)
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range mean {
				if mean[i] != want.Mean[i] || math.Abs(v[i]-want.Var[i]) > 1e-12*want.Var[i] {
					t.Errorf("%s row %d: %v ± %v, the writer predicted %v ± %v", name, i, mean[i], v[i], want.Mean[i], want.Var[i])
				}
			}
		}
		t.Logf("%s: version 3 file %d B, version 4 %d B", name, len(old), b.Len())
		if b.Len() >= len(old) {
			t.Errorf("%s: version 4 file %d B, not below version 3's %d B", name, b.Len(), len(old))
		}
	}
}
