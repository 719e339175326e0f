package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// The model file of vrvm fit, format "vrvm-cli-model": the library's model
// file embedded unchanged under "model", with what the command adds around
// it (column names, categories, the missing-value rule, standardisation),
// covered by a SHA-256 checksum of the compact body.
//
// Version 1 (before categorical inputs and missing values) is read as a
// model with numeric inputs only and the "error" missing-value rule;
// version 2 is written.
const (
	cliModelFormat  = "vrvm-cli-model"
	cliModelVersion = 2
)

// cliModel is the file written by vrvm fit: a checksummed body.
type cliModel struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Body    json.RawMessage `json:"body"`
	SHA256  string          `json:"sha256"`
}

// Missing-value rules.
const (
	missingError  = "error"
	missingDrop   = "drop"
	missingImpute = "impute"
)

// cliBody is what vrvm predict needs besides the library's model.
type cliBody struct {
	Task   string `json:"task"` // "regression", "classification" or "multiclass"
	Target string `json:"target"`
	// Inputs are the input columns of the file, in the order of the
	// features they become: a numeric column is one feature, a
	// categorical one as many as it has Categories (one-hot).
	Inputs []string `json:"inputs"`
	// Labels are the names of class 0 and class 1, if the target held
	// text labels.
	Labels []string `json:"labels,omitempty"`
	// Categories are the levels of each categorical input seen in
	// training, in the order of their one-hot features (version 2).
	Categories map[string][]string `json:"categories,omitempty"`
	// Missing is the missing-value rule: error, drop or impute ("" in
	// version 1: error). ImputeMean (numeric inputs, training units) and
	// ImputeMode (categorical inputs) are the fill values of impute.
	Missing    string             `json:"missing,omitempty"`
	ImputeMean map[string]float64 `json:"impute_mean,omitempty"`
	ImputeMode map[string]string  `json:"impute_mode,omitempty"`
	// Standardized features: x' = (x − InputMean)/InputSD, one entry per
	// feature, one-hot features included; for regression
	// also t' = (t − TargetMean)/TargetSD, undone on prediction.
	Standardized bool            `json:"standardized"`
	InputMean    []float64       `json:"input_mean,omitempty"`
	InputSD      []float64       `json:"input_sd,omitempty"`
	TargetMean   float64         `json:"target_mean,omitempty"`
	TargetSD     float64         `json:"target_sd,omitempty"`
	Model        json.RawMessage `json:"model"` // the library's model file
}

// features returns the number of features the inputs become.
func (b *cliBody) features() int {
	n := 0
	for _, c := range b.Inputs {
		if lv, ok := b.Categories[c]; ok {
			n += len(lv)
		} else {
			n++
		}
	}
	return n
}

// marshalCLIModel returns the model file's bytes: the envelope's fields
// one a line, the body compact on one line (indenting it would double the
// size of a model with many inputs).
func marshalCLIModel(b *cliBody) ([]byte, error) {
	body, err := json.Marshal(b) // compact, the embedded model included
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	var out bytes.Buffer
	out.Grow(len(body) + 200)
	fmt.Fprintf(&out, "{\n \"format\": %q,\n \"version\": %d,\n \"sha256\": %q,\n \"body\": ", cliModelFormat, cliModelVersion, hex.EncodeToString(sum[:]))
	out.Write(body)
	out.WriteString("\n}\n")
	return out.Bytes(), nil
}

// modelError is the error of a model file that cannot be used.
type modelError struct {
	path, reason string
}

func (e *modelError) Error() string { return e.path + ": bad model file: " + e.reason }

// loadedModel is a model file read back by vrvm predict.
type loadedModel struct {
	body cliBody
	est  *estimator
}

// readCLIModel reads and checks a file written by vrvm fit.
func readCLIModel(path string) (*loadedModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCLIModel(data, path)
}

// parseCLIModel checks and decodes a model file; path names it in errors.
func parseCLIModel(data []byte, path string) (*loadedModel, error) {
	bad := func(format string, args ...any) error {
		return &modelError{path: path, reason: fmt.Sprintf(format, args...)}
	}
	var env cliModel
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, bad("not valid JSON (truncated?): %v", err)
	}
	switch env.Format {
	case cliModelFormat:
	case "vrvm-model":
		return nil, bad(`it is a model file of the vrvm library, without column names; use a model written by "vrvm fit"`)
	default:
		return nil, bad("format %q, want %q (a model written by \"vrvm fit\")", env.Format, cliModelFormat)
	}
	if env.Version != 1 && env.Version != cliModelVersion {
		return nil, bad(`version %d is not supported (this vrvm reads versions 1 and %d); fit the model again with this "vrvm fit"`, env.Version, cliModelVersion)
	}
	var compact bytes.Buffer
	if len(env.Body) == 0 || json.Compact(&compact, env.Body) != nil {
		return nil, bad("missing body")
	}
	sum := sha256.Sum256(compact.Bytes())
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return nil, bad("checksum mismatch: the file was altered or corrupted")
	}
	m := &loadedModel{}
	dec := json.NewDecoder(bytes.NewReader(env.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m.body); err != nil {
		return nil, bad("body: %v", err)
	}
	b := &m.body
	if env.Version == 1 {
		if b.Categories != nil || b.Missing != "" || b.ImputeMean != nil || b.ImputeMode != nil {
			return nil, bad("version 1 with fields of version 2")
		}
		b.Missing = missingError
	}
	// The library's model first: its task is the first thing to match.
	est, err := loadEstimator(b.Task, b.Model)
	if err != nil {
		return nil, &modelError{path: path, reason: strings.TrimPrefix(err.Error(), "vrvm: bad model file: ")}
	}
	if err := b.check(); err != nil {
		return nil, bad("%v", err)
	}
	if err := est.checkInputs(b.features()); err != nil {
		return nil, bad("%v", err)
	}
	m.est = est
	return m, nil
}

// check validates a decoded body.
func (b *cliBody) check() error {
	switch b.Task {
	case "regression", "classification", "multiclass":
	default:
		return fmt.Errorf("task %q, want regression, classification or multiclass", b.Task)
	}
	if len(b.Inputs) == 0 {
		return fmt.Errorf("no input columns")
	}
	if b.Target == "" {
		return fmt.Errorf("no target column")
	}
	seen := map[string]bool{b.Target: true}
	for _, c := range b.Inputs {
		if c == "" || seen[c] {
			return fmt.Errorf("input column %q is empty or repeated", c)
		}
		seen[c] = true
	}
	for c, levels := range b.Categories {
		if !seen[c] || c == b.Target {
			return fmt.Errorf("categories for %q, which is not an input", c)
		}
		if len(levels) == 0 {
			return fmt.Errorf("no categories for input %q", c)
		}
		lv := map[string]bool{}
		for _, l := range levels {
			if l == "" || lv[l] {
				return fmt.Errorf("category %q of input %q is empty or repeated", l, c)
			}
			lv[l] = true
		}
	}
	switch b.Missing {
	case missingError, missingDrop:
		if b.ImputeMean != nil || b.ImputeMode != nil {
			return fmt.Errorf("fill values with the missing-value rule %q", b.Missing)
		}
	case missingImpute:
		for _, c := range b.Inputs {
			if levels, ok := b.Categories[c]; ok {
				mode, ok := b.ImputeMode[c]
				if !ok || !contains(levels, mode) {
					return fmt.Errorf("no valid fill value for input %q", c)
				}
			} else if v, ok := b.ImputeMean[c]; !ok || !finite(v) {
				return fmt.Errorf("no valid fill value for input %q", c)
			}
		}
		if len(b.ImputeMean)+len(b.ImputeMode) != len(b.Inputs) {
			return fmt.Errorf("fill values for columns that are not inputs")
		}
	default:
		return fmt.Errorf("missing-value rule %q, want error, drop or impute", b.Missing)
	}
	if b.Standardized {
		n := b.features()
		if len(b.InputMean) != n || len(b.InputSD) != n {
			return fmt.Errorf("%d input means and %d standard deviations for %d features", len(b.InputMean), len(b.InputSD), n)
		}
		for j := range n {
			if !finite(b.InputMean[j]) || !(b.InputSD[j] > 0) || !finite(b.InputSD[j]) {
				return fmt.Errorf("bad standardisation of feature %d", j+1)
			}
		}
	} else if b.InputMean != nil || b.InputSD != nil {
		return fmt.Errorf("standardisation statistics without standardisation")
	}
	switch b.Task {
	case "regression":
		if b.Labels != nil {
			return fmt.Errorf("class labels in a regression model")
		}
		if b.Standardized && (!finite(b.TargetMean) || !(b.TargetSD > 0) || !finite(b.TargetSD)) {
			return fmt.Errorf("bad standardisation of the target")
		}
	case "multiclass":
		seen := map[string]bool{}
		for _, l := range b.Labels {
			if seen[l] {
				return fmt.Errorf("class label %q repeated", l)
			}
			seen[l] = true
		}
		if len(b.Labels) < 2 {
			return fmt.Errorf("a multi-class model with %d class labels", len(b.Labels))
		}
	case "classification":
		if b.Labels != nil && (len(b.Labels) != 2 || b.Labels[0] == b.Labels[1] || b.Labels[0] == "" || b.Labels[1] == "") {
			return fmt.Errorf("class labels %q: want two different names", b.Labels)
		}
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
