package vrvm

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/design"
)

// Kernel is a basis function generator: the model places one basis function
// φₘ(x) = K(x, xₘ) on every training input xₘ (the paper's model (1)).
//
// Eval must be a pure function of its arguments and must not retain or modify
// them. It may be implemented in interpreted Go (yaegi or gophernotes); a
// kernel value that returns NaN or ±Inf makes Fit and the prediction methods
// return a *NonFiniteError.
//
// A kernel may also implement any of
//
//	Validate() error  // checked before every fit: invalid parameters
//	PSD() bool        // true if K is positive semi-definite
//	String() string   // its name in messages, tables and summaries
//	EvalBlock(dst, x, c *mat.Dense) // many pairs at once (BlockKernel)
//
// This package's kernels implement all four. Design matrices and
// predictions use EvalBlock where a kernel has it and Eval otherwise. A positive semi-definite
// kernel lets the Sequential and Newton solvers factorise the kernel matrix
// by pivoted Cholesky, computing only the kernel columns they need; other
// kernels are evaluated in full. To save a model fitted with a kernel of
// your own, name it with NamedKernel and read the model back with a
// Loader whose Kernels hold that name (kernels defined in an interpreter
// reach the library through Eval only: the name identifies them). A
// kernel that implements Learnable can be learned (LearnKernel).
type Kernel interface {
	Eval(x, y []float64) float64
}

// Learnable is a Kernel whose parameters θ (every one positive) kernel
// learning (LearnKernel) can learn. Learning works on their logarithms
// u = ln θ, and moves them along the gradient of the full-model bound,
// which it forms from the derivatives of K in u (K2), (K6). Gaussian and
// ARDGaussian implement it; so may a kernel of your own, which
// Classifier, MultiClassifier and, with Learning.ByBound, Regressor then
// learn. (Regressor's default learning, by the dense model's evidence,
// is for Gaussian and ARDGaussian; it learns any other Learnable kernel
// by the bound.)
type Learnable interface {
	Kernel
	// LogParams returns u = ln θ, in a slice of its own.
	LogParams() []float64
	// WithLogParams returns the kernel with θ = e^u, for u of the length
	// LogParams returns. It must not retain u.
	WithLogParams(u []float64) Learnable
	// AddLogGrad adds w·∂K(x, y)/∂uₖ to dst[k] for every parameter uₖ
	// (K2), given kv = K(x, y). It must not retain x, y or dst.
	AddLogGrad(dst, x, y []float64, kv, w float64)
}

// defaultKernel is the kernel of settings whose Kernel is nil (FitDesign,
// which uses none). Every estimator with a nil Kernel chooses a Gaussian
// width from the data instead (Regressor.Kernel, Classifier.Kernel,
// MultiClassifier.Kernel, (R6) and (R7) for the RVM estimators), and
// takes Gaussian{Width: 1} only where the inputs' rows are all equal.
var defaultKernel Kernel = Gaussian{Width: 1}

// learnedWidth names, in the summary of an estimator not yet fitted, the
// default of Regressor and Classifier: a Gaussian width to be learned.
type learnedWidth struct{}

func (learnedWidth) Eval(x, y []float64) float64 { panic("vrvm: learnedWidth is a name, not a kernel") }
func (learnedWidth) String() string              { return "Gaussian(width learned)" }

// validateKernel checks a kernel through its optional Validate method; a
// nil pointer is reported rather than dereferenced.
func validateKernel(k Kernel) error {
	if v := reflect.ValueOf(k); v.Kind() == reflect.Pointer && v.IsNil() {
		return &OptionError{Field: "Kernel", Reason: fmt.Sprintf("nil %T", k)}
	}
	if v, ok := k.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// isPSD reports whether k says it is positive semi-definite.
func isPSD(k Kernel) bool {
	p, ok := k.(interface{ PSD() bool })
	return ok && p.PSD()
}

// kernelString names a kernel for messages: its String method, or its type.
func kernelString(k Kernel) string {
	if s, ok := k.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", k)
}

// kernelSpec is a kernel as written in a model file: a built-in kernel by
// its parameters, a NamedKernel by its name.
type kernelSpec struct {
	Type   string  `json:"type"` // gaussian, ard-gaussian, polynomial, linear, registered, design
	Width  float64 `json:"width,omitempty"`
	Degree int     `json:"degree,omitempty"`
	Scale  float64 `json:"scale,omitempty"`
	Name   string  `json:"name,omitempty"` // of a NamedKernel
	// Params are the learned log-parameters of a named Learnable kernel.
	Params []float64 `json:"params,omitempty"`
	// Scales are the length scales of an ARDGaussian kernel.
	Scales []float64 `json:"scales,omitempty"`
}

// specKernel is implemented by the kernels a model file can hold.
type specKernel interface {
	Kernel
	spec() kernelSpec
}

// builtinKernels rebuilds this package's kernels from their specs.
var builtinKernels = map[string]func(kernelSpec) Kernel{
	"gaussian":   func(s kernelSpec) Kernel { return Gaussian{Width: s.Width} },
	"polynomial": func(s kernelSpec) Kernel { return Polynomial{Degree: s.Degree, Scale: s.Scale} },
	"linear":     func(kernelSpec) Kernel { return Linear{} },
	"ard-gaussian": func(s kernelSpec) Kernel {
		return ARDGaussian{Scales: append([]float64(nil), s.Scales...)}
	},
}

// NamedKernel returns k under name, so that a model fitted with the
// returned kernel can be saved: a model file holds the name, not the
// kernel's code, and a Loader whose Kernels map that name to the kernel
// reads the model back. The returned kernel evaluates k; its String is
// name, and it forwards k's Validate and PSD methods and, if k is
// Learnable, its learning hooks (a model fitted with a learned kernel
// saves the learned parameters beside the name).
//
// Name each parameter setting of a kernel of your own, for example
// "laplace(scale=2)". An empty name or a nil kernel is a programmer error
// and panics.
func NamedKernel(name string, k Kernel) Kernel {
	if name == "" || k == nil {
		panic("vrvm: NamedKernel needs a name and a kernel")
	}
	switch nk := k.(type) {
	case namedKernel:
		k = nk.k
	case namedLearnable:
		k = nk.k
	}
	if l, ok := k.(Learnable); ok {
		return namedLearnable{namedKernel{name: name, k: l}}
	}
	return namedKernel{name: name, k: k}
}

// namedKernel is a kernel named by NamedKernel.
type namedKernel struct {
	name string
	k    Kernel
}

func (n namedKernel) Eval(x, y []float64) float64 { return n.k.Eval(x, y) }
func (n namedKernel) Validate() error             { return validateKernel(n.k) }
func (n namedKernel) PSD() bool                   { return isPSD(n.k) }
func (n namedKernel) String() string              { return n.name }
func (n namedKernel) spec() kernelSpec            { return kernelSpec{Type: "registered", Name: n.name} }
func (n namedKernel) owned() Kernel               { return namedKernel{name: n.name, k: ownKernel(n.k)} }
func (n namedKernel) Inner() design.Kernel        { return n.k } // design.BlockOf looks through it
func (n namedKernel) selfValue() (float64, bool)  { return selfValue(n.k) }

// namedLearnable is a named Learnable kernel: it is learned as its
// kernel is, and its model file holds the learned parameters.
type namedLearnable struct{ namedKernel }

func (n namedLearnable) learnable() Learnable { return n.k.(Learnable) }
func (n namedLearnable) LogParams() []float64 { return n.learnable().LogParams() }
func (n namedLearnable) WithLogParams(u []float64) Learnable {
	return namedLearnable{namedKernel{name: n.name, k: n.learnable().WithLogParams(u)}}
}
func (n namedLearnable) AddLogGrad(dst, x, y []float64, kv, w float64) {
	n.learnable().AddLogGrad(dst, x, y, kv, w)
}
func (n namedLearnable) owned() Kernel {
	return namedLearnable{namedKernel{name: n.name, k: ownKernel(n.k)}}
}
func (n namedLearnable) spec() kernelSpec {
	return kernelSpec{Type: "registered", Name: n.name, Params: n.LogParams()}
}

// ownKernel returns k with the parameters it holds by reference copied:
// the Scales of an ARDGaussian, also behind a NamedKernel. A fitted
// or loaded model keeps its own copy, so that a caller who changes the
// Scales it fitted with (to fit the next model, say) or those of
// FittedKernel does not change the model's predictions, nor write them
// under the goroutines predicting with it (TestConcurrentKernelOwned).
// Other kernels are returned as they are: the built-in ones are values,
// and a kernel of the caller's own must not change after a fit.
func ownKernel(k Kernel) Kernel {
	if o, ok := k.(interface{ owned() Kernel }); ok {
		return o.owned()
	}
	return k
}

// kernelFromSpec rebuilds the kernel of a model file; kernels resolves
// the names of NamedKernel kernels (Loader.Kernels).
func kernelFromSpec(s kernelSpec, kernels map[string]Kernel) (Kernel, error) {
	var k Kernel
	switch mk, ok := builtinKernels[s.Type]; {
	case s.Type == "design":
		return nil, nil
	case ok:
		k = mk(s)
	case s.Type == "registered":
		var err error
		if k, err = namedFromSpec(s, kernels); err != nil {
			return nil, err
		}
	default:
		return nil, &ModelFileError{Reason: fmt.Sprintf("unknown kernel type %q", s.Type)}
	}
	if err := validateKernel(k); err != nil {
		return nil, &ModelFileError{Reason: err.Error()}
	}
	return k, nil
}

// namedFromSpec returns the kernel of kernels named in s, at the learned
// parameters of s if it has any.
func namedFromSpec(s kernelSpec, kernels map[string]Kernel) (Kernel, error) {
	k, ok := kernels[s.Name]
	if !ok || k == nil {
		return nil, &ModelFileError{Reason: fmt.Sprintf("the model's kernel %q is not among the Loader's Kernels: load it with vrvm.Loader{Kernels: map[string]vrvm.Kernel{%q: …}}", s.Name, s.Name)}
	}
	nk := NamedKernel(s.Name, k)
	if s.Params == nil {
		return nk, nil
	}
	l, ok := nk.(Learnable)
	if !ok {
		return nil, &ModelFileError{Reason: fmt.Sprintf("kernel %q: the model holds learned parameters, but the Loader's kernel %s does not implement Learnable", s.Name, kernelString(k))}
	}
	if n := len(l.LogParams()); n != len(s.Params) {
		return nil, &ModelFileError{Reason: fmt.Sprintf("kernel %q: the model holds %d learned parameters, the Loader's kernel has %d", s.Name, len(s.Params), n)}
	}
	for _, v := range s.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &ModelFileError{Reason: fmt.Sprintf("kernel %q: learned log-parameter %v is not finite", s.Name, v)}
		}
	}
	return l.WithLogParams(append([]float64(nil), s.Params...)), nil
}

// specOf returns the spec of a kernel for a model file; nil means a user
// design matrix.
func specOf(k Kernel) (kernelSpec, error) {
	if k == nil {
		return kernelSpec{Type: "design"}, nil
	}
	if v := reflect.ValueOf(k); v.Kind() == reflect.Pointer && !v.IsNil() {
		if e, ok := v.Elem().Interface().(specKernel); ok {
			return e.spec(), nil
		}
	}
	if s, ok := k.(specKernel); ok {
		return s.spec(), nil
	}
	return kernelSpec{}, ErrUnsavableKernel
}

// basis describes the full set of candidate basis functions: an optional
// bias φ₀ = 1 followed by one kernel function per centre, in centre order.
// When kernel is nil the design matrix was supplied by the user and column j
// of it is basis function j.
type basis struct {
	kernel  Kernel
	bias    bool
	centers *mat.Dense // one row per candidate centre; nil for a user design or when there are none
	// sub holds the training rows of the centres when they are a subset
	// of the training inputs (design.DefaultMaxCentres), nil when every training
	// input is a centre, in order.
	sub []int
	dim int // input columns (kernel) or design columns (user design)
	// scales divides the columns of a user design (design.ColumnScales, (U1));
	// nil for none or for a kernel, which is scaled by design.Scaled.
	scales []float64
}

// design evaluates the basis functions with indices cols (indices into the
// full basis) at the rows of x and returns the len(x rows) × len(cols)
// design matrix. Non-finite kernel values are reported as a *NonFiniteError.
func (b *basis) design(x mat.Matrix, cols []int) (*mat.Dense, error) {
	return b.designCtx(context.Background(), x, cols)
}

// designCtx is design that stops, with the error of stopped, when ctx is
// done. It evaluates the kernel by blocks of rows (design.Columns), in
// parallel for large designs, and looks at ctx before each block, so that
// an interrupt reaches a slow (for example interpreted) kernel, one
// without EvalBlock, within one block of about design.EvalBlockSize
// evaluations (or one row).
func (b *basis) designCtx(ctx context.Context, x mat.Matrix, cols []int) (*mat.Dense, error) {
	n, d := x.Dims()
	phi := mat.NewDense(n, len(cols), nil)
	if b.kernel == nil {
		if d != b.dim {
			return nil, &DimensionError{What: "design matrix columns", Got: d, Want: b.dim}
		}
		for j, c := range cols {
			d := 1.0
			if b.scales != nil {
				d = b.scales[c]
			}
			for i := range n {
				phi.Set(i, j, x.At(i, c)/d)
			}
		}
		return phi, nil
	}
	if d != b.dim {
		return nil, &DimensionError{What: "input columns", Got: d, Want: b.dim}
	}
	// The kernel functions among cols, their positions and centres.
	bias := -1
	var pos, centre []int
	for j, c := range cols {
		if b.bias && c == 0 {
			bias = j
			continue
		}
		pos = append(pos, j)
		centre = append(centre, c-b.offset())
	}
	if bias >= 0 {
		for i := range n {
			phi.Set(i, bias, 1)
		}
	}
	if len(centre) == 0 {
		return phi, nil
	}
	err := design.Columns(phi, b.kernel, denseOf(x), b.centers, pos, centre, func() error { return stopped(ctx, 0) })
	if err != nil {
		return nil, kernelErr(err)
	}
	return phi, nil
}

// maxKernelValue is the largest |K(x, x)| a fit accepts: the precision's
// entries are sums of products of two kernel values, and with larger
// values they overflow, or the bias and every smaller function are lost
// to rounding beside them. maxKernelSpread is the largest ratio of the
// largest |K(x, x)| to its median over the training inputs: beyond it
// (for example a polynomial of degree 50) the precision's condition
// number exceeds anything a factorisation in float64 can resolve.
const (
	maxKernelValue  = 1e50
	maxKernelSpread = 1e20
)

// checkScale evaluates K(xᵢ, xᵢ) at every centre and reports a value
// beyond maxKernelValue or a spread beyond maxKernelSpread
// (ErrKernelScale), or a non-finite value (a *NonFiniteError).
func (b *basis) checkScale() error {
	if b.centers == nil {
		return nil
	}
	rows := rowsOf(b.centers)
	d := make([]float64, len(rows))
	if err := kernelValues(b.kernel, rows, d, func(i int) int { return i }); err != nil {
		return err
	}
	top := 0
	abs := make([]float64, len(d))
	for i, v := range d {
		abs[i] = math.Abs(v)
		if abs[i] > abs[top] {
			top = i
		}
	}
	const advice = "rescale the inputs (standardise them) or lower the kernel's degree or scale"
	if abs[top] > maxKernelValue {
		return fmt.Errorf("vrvm: kernel %s: K(x, x) = %.3g at training row %d: %w; %s",
			kernelString(b.kernel), d[top], top, ErrKernelScale, advice)
	}
	sort.Float64s(abs)
	if med := abs[len(abs)/2]; med > 0 && abs[len(abs)-1] > maxKernelSpread*med {
		return fmt.Errorf("vrvm: kernel %s: K(x, x) = %.3g at training row %d, %.3g times its median %.3g: %w; %s",
			kernelString(b.kernel), d[top], top, abs[len(abs)-1]/med, med, ErrKernelScale, advice)
	}
	return nil
}

// full evaluates every candidate function at the rows of x (for a user
// design, x itself).
func (b *basis) full(x mat.Matrix) (*mat.Dense, error) { return b.fullCtx(context.Background(), x) }

// fullCtx is full with a context, as designCtx.
func (b *basis) fullCtx(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	if b.kernel == nil && b.scales == nil {
		return mat.DenseCopyOf(x), nil
	}
	return b.designCtx(ctx, x, seq(b.size()))
}

// offset is the index of the first kernel basis function.
func (b *basis) offset() int {
	if b.bias {
		return 1
	}
	return 0
}

// size is the number of candidate basis functions.
func (b *basis) size() int {
	if b.kernel == nil {
		return b.dim
	}
	if b.centers == nil {
		return b.offset()
	}
	r, _ := b.centers.Dims()
	return r + b.offset()
}

// rowsOf returns the rows of x as slices (views where x is a *mat.Dense).
func rowsOf(x mat.Matrix) [][]float64 {
	n, d := x.Dims()
	rows := make([][]float64, n)
	if dx, ok := x.(*mat.Dense); ok {
		for i := range n {
			rows[i] = dx.RawRowView(i)
		}
		return rows
	}
	for i := range n {
		r := make([]float64, d)
		for j := range d {
			r[j] = x.At(i, j)
		}
		rows[i] = r
	}
	return rows
}

// row returns the training row of centre c.
func (b *basis) row(c int) int {
	if b.sub == nil {
		return c
	}
	return b.sub[c]
}
