package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/vrvm/vrvm/internal/boundedjson"
)

// The model file of vrvm fit is the library's model file (vrvm.SaveMeta)
// with what the command adds (column names, categories, the missing-value
// rule, standardisation) as its metadata, a cliMeta of version 3 covered by
// the library's checksum.
//
// The command's former format, "vrvm-cli-model", embedded the library's
// model file in a checksummed body; its versions 1 (before categorical
// inputs and missing values: numeric inputs only and the "error"
// missing-value rule) and 2 are still read.
const (
	cliMetaVersion  = 3
	vrvmModelFormat = "vrvm-model" // the format of the library's model files
	legacyFormat    = "vrvm-cli-model"
)

// Missing-value rules.
const (
	missingError  = "error"
	missingDrop   = "drop"
	missingImpute = "impute"
)

// cliMeta is what vrvm predict needs besides the library's model.
type cliMeta struct {
	// Version is cliMetaVersion; 0 in the bodies of the former format.
	Version int    `json:"version,omitempty"`
	Task    string `json:"task"` // "regression", "classification" or "multiclass"
	Target  string `json:"target"`
	// Inputs are the input columns of the file, in the order of the
	// features they become: a numeric column is one feature, a
	// categorical one as many as it has Categories (one-hot).
	Inputs []string `json:"inputs"`
	// Labels are the names of class 0 and class 1, if the target held
	// text labels; for task "multiclass", the class labels in the order
	// of the model's probability columns (vrvm.MultiClassifier.Classes).
	Labels []string `json:"labels,omitempty"`
	// Categories are the levels of each categorical input seen in
	// training, in the order of their one-hot features (from version 2).
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
	Standardized bool      `json:"standardized"`
	InputMean    []float64 `json:"input_mean,omitempty"`
	InputSD      []float64 `json:"input_sd,omitempty"`
	TargetMean   float64   `json:"target_mean,omitempty"`
	TargetSD     float64   `json:"target_sd,omitempty"`
}

// features returns the number of features the inputs become.
func (b *cliMeta) features() int {
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

// modelError is the error of a model file that cannot be used.
type modelError struct {
	path, reason string
}

func (e *modelError) Error() string { return e.path + ": bad model file: " + e.reason }

// libraryError is the modelError of an error of the library's Load.
func libraryError(path string, err error) error {
	return &modelError{path: path, reason: strings.TrimPrefix(err.Error(), "vrvm: bad model file: ")}
}

// loadedModel is a model file read back by vrvm predict.
type loadedModel struct {
	meta cliMeta
	est  *estimator
}

// maxModelBytes bounds the bytes of a model file that vrvm predict reads,
// as the library's Load does: far above any model file, so that
// /dev/zero or a huge file is an error, not the whole memory.
const maxModelBytes = 1 << 30

// readCLIModel reads and checks a file written by vrvm fit.
func readCLIModel(path string) (*loadedModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := boundedjson.Read(f, maxModelBytes)
	var tl *boundedjson.TooLargeError
	var se *boundedjson.SyntaxError
	switch {
	case errors.As(err, &tl):
		return nil, &modelError{path: path, reason: "too large: " + err.Error()}
	case errors.As(err, &se):
		return nil, &modelError{path: path, reason: "not valid JSON (truncated?): " + err.Error()}
	case err != nil:
		return nil, pathError(path, err)
	}
	return parseCLIModel(data, path)
}

// parseCLIModel checks and decodes a model file; path names it in errors.
func parseCLIModel(data []byte, path string) (*loadedModel, error) {
	bad := func(format string, args ...any) error {
		return &modelError{path: path, reason: fmt.Sprintf(format, args...)}
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, bad("not valid JSON (truncated?): %v", err)
	}
	m := &loadedModel{}
	var err error
	switch head.Format {
	case vrvmModelFormat:
		// The library's model first: its task is the first thing to match.
		if m.est, err = loadEstimator(bytes.NewReader(data), &m.meta); err != nil {
			return nil, libraryError(path, err)
		}
		if m.meta.Version == 0 && m.meta.Task == "" && m.meta.Inputs == nil {
			return nil, bad(`it is a model file of the vrvm library, without column names; use a model written by "vrvm fit"`)
		}
		if m.meta.Version != cliMetaVersion {
			return nil, bad(`version %d of the command's metadata is not supported (this vrvm reads version %d); fit the model again with this "vrvm fit"`, m.meta.Version, cliMetaVersion)
		}
	case legacyFormat:
		if err := parseLegacy(data, head.Version, m, path); err != nil {
			return nil, err
		}
	default:
		return nil, bad("format %q, want %q (a model written by \"vrvm fit\")", head.Format, vrvmModelFormat)
	}
	b := &m.meta
	if got := m.est.task(); got != b.Task {
		return nil, bad("file holds a %s model, not %s", got, b.Task)
	}
	if err := b.check(); err != nil {
		return nil, bad("%v", err)
	}
	if err := m.est.checkInputs(b.features()); err != nil {
		return nil, bad("%v", err)
	}
	if mc := m.est.mc; mc != nil && strings.Join(mc.Classes(), "\x00") != strings.Join(b.Labels, "\x00") {
		return nil, bad("class labels %q, the model's are %q", b.Labels, mc.Classes())
	}
	return m, nil
}

// parseLegacy decodes a file of the former format "vrvm-cli-model" into
// m: it checks the version and the SHA-256 of the compact body, and loads
// the library's model file embedded in it.
func parseLegacy(data []byte, version int, m *loadedModel, path string) error {
	bad := func(format string, args ...any) error {
		return &modelError{path: path, reason: fmt.Sprintf(format, args...)}
	}
	if version != 1 && version != 2 {
		return bad(`version %d is not supported (this vrvm reads versions 1 and 2 of format %q); fit the model again with this "vrvm fit"`, version, legacyFormat)
	}
	var env struct {
		Body   json.RawMessage `json:"body"`
		SHA256 string          `json:"sha256"`
	}
	var compact bytes.Buffer
	if json.Unmarshal(data, &env) != nil || len(env.Body) == 0 || json.Compact(&compact, env.Body) != nil {
		return bad("missing body")
	}
	if sum := sha256.Sum256(compact.Bytes()); hex.EncodeToString(sum[:]) != env.SHA256 {
		return bad("checksum mismatch: the file was altered or corrupted")
	}
	var body struct {
		cliMeta
		Model json.RawMessage `json:"model"` // the library's model file
	}
	dec := json.NewDecoder(bytes.NewReader(env.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return bad("body: %v", err)
	}
	b := &body.cliMeta
	if version == 1 {
		if b.Categories != nil || b.Missing != "" || b.ImputeMean != nil || b.ImputeMode != nil {
			return bad("version 1 with fields of version 2")
		}
		b.Missing = missingError
	}
	if b.Task != "regression" && b.Task != "classification" {
		return bad("task %q, want regression or classification", b.Task)
	}
	est, err := loadEstimator(bytes.NewReader(body.Model), nil)
	if err != nil {
		return libraryError(path, err)
	}
	m.meta, m.est = *b, est
	return nil
}

// check validates decoded metadata.
func (b *cliMeta) check() error {
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
		if b.Standardized {
			// The range vrvm fit accepts: the variances' scale sd² is a
			// normal float64.
			if err := targetScaleError(b.Target, b.TargetSD); err != nil {
				return fmt.Errorf("target_sd: %w", err)
			}
		}
	case "multiclass":
		if len(b.Labels) < 2 {
			return fmt.Errorf("a multi-class model with %d class labels", len(b.Labels))
		}
		seen := map[string]bool{}
		for _, l := range b.Labels {
			if l == "" || seen[l] {
				return fmt.Errorf("class label %q is empty or repeated", l)
			}
			seen[l] = true
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
