package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzParseCLIModel: no model file makes the reader panic, and a file it
// accepts can predict. The input is a whole file; or (first byte 'M')
// metadata saved with vrvm.SaveMeta around the model of
// testdata/v2-regression.json, or (first byte 'B') a body of the former
// format wrapped with a valid checksum, so that the fuzzer reaches the
// checks behind them.
func FuzzParseCLIModel(f *testing.F) {
	v1, err := os.ReadFile(filepath.Join("testdata", "v1-regression.json"))
	if err != nil {
		f.Fatal(err)
	}
	v2, err := os.ReadFile(filepath.Join("testdata", "v2-regression.json"))
	if err != nil {
		f.Fatal(err)
	}
	m2, err := parseCLIModel(v2, "v2-regression.json")
	if err != nil {
		f.Fatal(err)
	}
	var v3 bytes.Buffer
	meta := m2.meta
	meta.Version = cliMetaVersion
	if err := m2.est.save(&v3, &meta); err != nil {
		f.Fatal(err)
	}
	f.Add(v1)
	f.Add(v2)
	f.Add(v3.Bytes())
	var env struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(v1, &env); err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte("B"), env.Body...))
	// A version 2 body with fill values.
	var body map[string]any
	if err := json.Unmarshal(env.Body, &body); err != nil {
		f.Fatal(err)
	}
	body["inputs"] = []string{"x1", "x2"}
	body["missing"], body["impute_mean"] = missingImpute, map[string]float64{"x1": 0.5, "x2": 1}
	b2, _ := json.Marshal(body)
	f.Add(append([]byte("B"), b2...))
	mb, _ := json.Marshal(meta)
	f.Add(append([]byte("M"), mb...))
	// Scalings each in range whose products overflow (issue 48).
	huge := meta
	huge.Standardized, huge.TargetMean, huge.TargetSD = true, 0, 1e150
	huge.InputMean, huge.InputSD = make([]float64, meta.features()), make([]float64, meta.features())
	for j := range huge.InputSD {
		huge.InputMean[j], huge.InputSD[j] = 1e300, 1e-300
	}
	hb, _ := json.Marshal(huge)
	f.Add(append([]byte("M"), hb...))
	f.Add([]byte(`{"format":"vrvm-cli-model","version":2,"body":{},"sha256":""}`))
	f.Add([]byte("B" + `{"task":"classification","target":"t","inputs":["a"],"categories":{"a":["x","y"]},"missing":"drop","standardized":false,"model":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		switch {
		case len(data) > 0 && data[0] == 'B':
			var compact bytes.Buffer
			if json.Compact(&compact, data[1:]) != nil {
				return
			}
			sum := sha256.Sum256(compact.Bytes())
			env := map[string]any{"format": legacyFormat, "version": 2, "body": json.RawMessage(compact.Bytes()), "sha256": hex.EncodeToString(sum[:])}
			var err error
			if data, err = json.Marshal(env); err != nil {
				return
			}
		case len(data) > 0 && data[0] == 'M':
			if !json.Valid(data[1:]) {
				return
			}
			var b bytes.Buffer
			if m2.est.save(&b, json.RawMessage(data[1:])) != nil {
				return
			}
			data = b.Bytes()
		}
		m, err := parseCLIModel(data, "fuzz.json")
		if err != nil {
			var me *modelError
			if !errors.As(err, &me) {
				t.Fatalf("error %T %v is not a modelError", err, err)
			}
			return
		}
		// An accepted model predicts finite values on rows of its
		// features, or an error naming the line that overflows.
		x := mat.NewDense(2, m.meta.features(), nil)
		if m.meta.Standardized {
			standardizeInPlace(x, m.meta.InputMean, m.meta.InputSD)
		}
		tab := &table{name: "fuzz.csv", lines: []int{2, 3}}
		p, err := predictRows(context.Background(), m, x, []bool{false, false}, tab, io.Discard)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv:2: ") && !strings.HasPrefix(err.Error(), "fuzz.csv:3: ") || !strings.Contains(err.Error(), "overflow at this row") {
				t.Fatalf("an accepted model cannot predict: %v", err)
			}
			return
		}
		for _, v := range [][]float64{p.mean, p.variance, p.plugin, p.moderated} {
			for i, y := range v {
				if !finite(y) {
					t.Fatalf("row %d predicts %v without an error", i, y)
				}
			}
		}
	})
}
