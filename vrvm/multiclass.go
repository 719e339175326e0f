package vrvm

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/vrvm/vrvm/vrvm/internal/multiclass"
)

// MultiClassifier is a native multi-class variational relevance vector
// machine (docs/design.md, "Multi-class classification"): one weight vector per
// class over the shared basis, P(t = k | x, W) = softmaxₖ(Wᵀφ(x)) (M1),
// one ARD precision αₘₖ per weight (M2), so that each function is
// relevant for the classes that need it, Böhning's fixed-curvature bound
// on the softmax (M3), which keeps every update in closed form, and a
// posterior factorised over classes, one M × M problem per class (M4).
// On small problems (up to about 245 rows) the default solver fits the
// softmax model a second time from a few iterations of the paper's
// schedule and keeps the fit with the higher bound (M23).
// With Likelihood Probit it is instead the multinomial probit with
// auxiliary variables and one precision per function shared by the
// classes (docs/design.md, "Multi-class probit", (P1)–(P13)).
//
// Labels are strings; IntLabels converts integer class numbers. The
// exported fields configure the fit; their zero values mean the defaults.
// Fit never modifies them.
type MultiClassifier struct {
	// Kernel, NoBias, Prior, Alpha0, PruneAlpha, MaxIter and Monitor are
	// as for Classifier (a nil Kernel is a Gaussian with a learned
	// width, see LearnKernel); the Monitor sees the full-model bound.
	Kernel     Kernel
	NoBias     bool
	Prior      Prior
	Alpha0     float64
	PruneAlpha float64
	MaxIter    int
	Monitor    func(Progress) bool
	// NoPrune keeps every basis function to the end: the paper's
	// schedule starts from all N + 1 and removes none; the sequential
	// solver starts from all and removes none.
	NoPrune bool
	// Tol is the convergence tolerance on the relative change of the lower
	// bound per iteration; 0 means 1e-8.
	Tol float64
	// ParamTol is the convergence tolerance on the largest relative change
	// per iteration of ⟨αₘ⟩ (active functions) and of the expansion points
	// ψ; 0 means 1e-4.
	ParamTol float64
	// Method is the algorithm: Sequential{} (nil means it) or
	// PaperSchedule{}; Newton is an *OptionError.
	Method Method
	// Likelihood selects the model: Softmax (the zero value, (M1) under
	// Böhning's bound), SoftmaxAdaptive ((M1) under the adaptive bound
	// (M19)) or Probit, the multinomial probit (P1).
	Likelihood MultiLikelihood
	// LearnKernel and Learning are as for Classifier: the kernel's
	// parameters are learned by maximising the full-model bound (docs/design.md,
	// "Learning the kernel", (K9)–(K10)). A nil Kernel means a Gaussian
	// whose width is learned so, starting from the inputs'
	// MedianDistance.
	LearnKernel bool
	Learning    KernelLearning
	// Centres is as for Classifier: the number of kernel functions the
	// model may use, each centred at a training input; 0 means one per
	// training input up to 5,000 of them, and 5,000 drawn from them
	// (with a fixed seed) above that, so that the N × Centres design
	// bounds the memory of a fit (at 50,000 rows 2 GB, not 20 GB).
	// Kernel learning fits on Learning.MaxRows rows, every one a centre.
	Centres int
	// NoAugment turns off the augmentation of the softmax model's
	// predictions at the test point (docs/design.md, "Variance away from the
	// data", (A7)), which is on by default as for Classifier: each
	// class's activation gains a kernel function centred at the
	// predicted row, so that its variance does not collapse away from
	// the relevance vectors. The model then keeps the low-rank form of
	// (A10)–(A13), or, for a kernel matrix of higher rank than its cap,
	// the training inputs and residuals. SoftmaxAdaptive and Probit are never augmented, nor is
	// a kernel whose K(x, x) varies, such as Polynomial and Linear (A9).
	NoAugment bool
	// NoRescale fits the kernel exactly as given, the paper's model, as
	// for Classifier: by default a kernel other than Gaussian and
	// ARDGaussian whose values at the training inputs have a root mean
	// square above 1 is divided by it before the fit (U1).
	NoRescale bool

	// ctl holds the controls of the engine's parts (controls.go; zero:
	// every part on), set by tests and ablations.
	ctl controls

	multiFit
}

// Default convergence tolerances of MultiClassifier, looser than the
// binary classifier's: the paper's schedule moves the ⟨αₘ⟩ of barely
// relevant functions by relative amounts of 1e-6 per iteration for
// thousands of iterations (it stops at 1e-4 after 8,039 iterations on
// iris), and the predictions are settled long before. Not tuned further.
const (
	defaultMultiTol      = 1e-8
	defaultMultiParamTol = 1e-4
)

// IntLabels returns the class labels of numeric targets as strings: each
// value must be an integer (…, −1, 0, 1, 2, …), else a *LabelError
// names the row; NaN and ±Inf give a *NonFiniteError.
func IntLabels(t []float64) ([]string, error) {
	out := make([]string, len(t))
	for i, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &NonFiniteError{What: "labels", Row: i, Col: -1, Value: v}
		}
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return nil, &LabelError{Row: i, Label: strconv.FormatFloat(v, 'g', -1, 64), Reason: "is not an integer class number"}
		}
		out[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return out, nil
}

// sortClasses orders class labels: numerically if every label is a
// number, else as strings.
func sortClasses(c []string) {
	num := make([]float64, len(c))
	numeric := true
	for i, s := range c {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) {
			numeric = false
			break
		}
		num[i] = v
	}
	if !numeric {
		sort.Strings(c)
		return
	}
	sort.Slice(c, func(i, j int) bool {
		a, _ := strconv.ParseFloat(c[i], 64)
		b, _ := strconv.ParseFloat(c[j], 64)
		return a < b || (a == b && c[i] < c[j])
	})
}

// classIndex returns the sorted classes of labels and each row's class.
func classIndex(labels []string) (classes []string, y []int, err error) {
	count := map[string]int{}
	for _, l := range labels {
		count[l]++
	}
	for c := range count {
		classes = append(classes, c)
	}
	sortClasses(classes)
	if len(classes) < 2 {
		return nil, nil, ErrSingleClass
	}
	for i, l := range labels {
		if count[l] < 2 {
			return nil, nil, &LabelError{Row: i, Label: l, Reason: "is the only row of its class; every class needs at least 2"}
		}
	}
	pos := map[string]int{}
	for i, c := range classes {
		pos[c] = i
	}
	y = make([]int, len(labels))
	for i, l := range labels {
		y[i] = pos[l]
	}
	return classes, y, nil
}

// multiFit is the fitted state of a MultiClassifier: fitted's, with the
// classes and the M × K posterior means in place of its μ.
type multiFit struct{ fitted }

func (c *MultiClassifier) options() options {
	return options{kernel: c.Kernel, noBias: c.NoBias, prior: c.Prior, alpha0: c.Alpha0, noPrune: c.NoPrune,
		pruneAlpha: c.PruneAlpha, maxIter: c.MaxIter, tol: c.Tol, paramTol: c.ParamTol, monitor: c.Monitor,
		method: c.Method, noNewton: "MultiClassifier", defPrune: defaultClassificationPrune, defTol: defaultMultiTol,
		centres: c.Centres, hasCentres: true, ownScale: c.NoRescale, ctl: c.ctl}
}

// Fit fits the classifier to inputs x (one row per sample) and class
// labels (one per row, any strings; at least two classes, each with at
// least two rows).
func (c *MultiClassifier) Fit(x mat.Matrix, labels []string) error {
	return c.FitContext(context.Background(), x, labels)
}

// FitContext is Fit with a context: the fit stops when ctx is done and
// keeps the state reached, as Regressor.FitContext.
func (c *MultiClassifier) FitContext(ctx context.Context, x mat.Matrix, labels []string) error {
	return c.fit(ctx, x, labels, nil)
}

// fit is FitContext with a hook called after every factor update with the
// step's name and a function returning the bound (tests).
func (c *MultiClassifier) fit(ctx context.Context, x mat.Matrix, labels []string, hook func(step string, bound func() float64)) error {
	_, err := fitUnder(ctx, &c.multiFit, &c.fitted, func() error { return c.fitNew(ctx, x, labels, hook) })
	return err
}

func (c *MultiClassifier) fitNew(ctx context.Context, x mat.Matrix, labels []string, hook func(step string, bound func() float64)) error {
	c.multiFit = multiFit{fitted{task: "multiclass", estimator: "vrvm"}}
	if c.Likelihood != Probit && c.Likelihood != Softmax && c.Likelihood != SoftmaxAdaptive {
		return &OptionError{Field: "Likelihood", Reason: fmt.Sprintf("unknown likelihood %d", int(c.Likelihood))}
	}
	o := c.options()
	if o.paramTol == 0 {
		o.paramTol = defaultMultiParamTol
	}
	var t []float64
	if x != nil {
		n, _ := x.Dims()
		if len(labels) != n {
			return &DimensionError{What: "number of labels vs rows of x", Got: len(labels), Want: n}
		}
		t = make([]float64, n)
	}
	// A nil Kernel without LearnKernel is the default: a Gaussian width
	// learned from the inputs' median distance, as for Classifier.
	implicit := o.kernel == nil && !c.LearnKernel
	k0, err := startLearning(c.LearnKernel || implicit, implicit, false, &o, x, t)
	if err != nil {
		return err
	}
	s, b, err := prepare(o, x, t, false)
	if err != nil {
		return err
	}
	classes, y, err := classIndex(labels)
	if err != nil {
		return err
	}
	if err := stopped(ctx, 0); err != nil {
		return err
	}
	var sol *multiclass.Result
	var learned []float64
	if k0 != nil {
		lo, err := c.Learning.resolve(k0)
		if err != nil {
			return err
		}
		tg := &mcTarget{s: s, b: b, x: x, y: y, nk: len(classes), lik: c.Likelihood}
		if n, _ := x.Dims(); lo.MaxRows > 0 && n > lo.MaxRows {
			rows := spread(n, lo.MaxRows)
			ls := make([]string, len(rows))
			for i, r := range rows {
				ls[i] = labels[r]
			}
			// Learn on MaxRows rows if every class keeps two of them.
			if cs, ys, err := classIndex(ls); err == nil && len(cs) == len(classes) {
				tg.x, tg.y = selectRows(mat.DenseCopyOf(x), rows), ys
			}
		}
		if tg.x == x && b.sub != nil {
			return &OptionError{Field: "Centres", Value: float64(len(b.sub)),
				Reason: "learning the kernel on every training row needs every row as a centre"}
		}
		tg.b.centers, tg.b.sub = mat.DenseCopyOf(tg.x), nil
		best, kl, trace, err := learnWith(ctx, tg, tg.x, k0, lo)
		if best == nil {
			return err
		}
		s.kernel, b.kernel = kl, kl
		if err != nil || tg.x == x {
			// Learned on every row, or stopped: the best fit so far is
			// the model.
			fb, fs := best.(*mcFit).b, best.(*mcFit).sol
			if err == nil {
				if fs, err = c.secondStart(ctx, &fb, x, y, len(classes), s, fs); fs == nil {
					return err
				}
			}
			return c.record(fb, fs, classes, c.Likelihood, trace, x, y, err)
		}
		learned = trace
	}
	sol, _, err = solveMulti(ctx, &b, x, y, len(classes), s, c.Likelihood, false, hook)
	if sol == nil {
		return err
	}
	if err == nil {
		if sol, err = c.secondStart(ctx, &b, x, y, len(classes), s, sol); sol == nil {
			return err
		}
	}
	return c.record(b, sol, classes, c.Likelihood, learned, x, y, err)
}

// record sets the fitted state from the solution sol on basis b, fitted
// to inputs x with classes y; err is the solver's, returned.
func (c *MultiClassifier) record(b basis, sol *multiclass.Result, classes []string, lik MultiLikelihood, learned []float64, x mat.Matrix, y []int, err error) error {
	dv := b.divisors(sol.Cols)
	if dv != nil { // (U2)
		sol.Mu, sol.AlphaK = unscaleMean(sol.Mu, dv), unscaleAlpha(sol.AlphaK, dv)
		sigmas := make([]*mat.SymDense, len(sol.Sigmas))
		for i, s := range sol.Sigmas {
			sigmas[i] = unscaleSym(s, dv)
		}
		sol.Sigmas = sigmas
		b = b.unscaled()
	}
	m := len(sol.Cols)
	alpha := make([]float64, m)
	for i := range m {
		alpha[i] = math.Inf(1)
		for _, a := range sol.AlphaK.RawRowView(i) {
			if a > 0 {
				alpha[i] = math.Min(alpha[i], a)
			}
		}
	}
	sigma := sol.Sigmas[0]
	f := fitted{status: engineStatus(sol.Status), classes: classes, w: sol.Mu, trace: sol.Trace, iters: sol.Iters, full: sol.Trace[len(sol.Trace)-1],
		task: "multiclass", estimator: "vrvm", learnTrace: learned}
	f.setPosterior(b, sol.Cols, nil, sigma, alpha, dv)
	f.sigmas, f.alphaK, f.multiLik = sol.Sigmas, sol.AlphaK, lik
	if !c.NoAugment && lik == Softmax && b.kernel != nil && constantDiagonal(b.kernel, x) { // (A9)
		f.mcAug = newMCAugmentation(x, y, sol.AlphaK, b.bias && len(sol.Cols) > 0 && sol.Cols[0] == 0) // (A7)
	}
	c.multiFit = multiFit{f}
	if c.status == Converged && len(c.RelevanceVectors()) == 0 {
		c.status = InterceptOnly
	}
	return err
}

// Classes returns the class labels in the order of the probability
// columns: numerically sorted if every label is a number, else sorted as
// strings.
func (f *multiFit) Classes() []string { return append([]string(nil), f.classes...) }

// activations returns the mean activations ȳ = Φμ (N × K) at the rows of x
// and their variances vₙₖ = φₙᵀΣₖφₙ (N × K).
func (f *multiFit) activations(x mat.Matrix) (*mat.Dense, *mat.Dense, error) {
	return f.activationsAug(x, true)
}

// activationsAug is activations, augmented at each row (A7) if augment
// and the fit augments its predictions.
func (f *multiFit) activationsAug(x mat.Matrix, augment bool) (*mat.Dense, *mat.Dense, error) {
	n, err := f.checkRows(x)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 {
		return &mat.Dense{}, &mat.Dense{}, nil
	}
	if err := checkFinite("x", x); err != nil {
		return nil, nil, err
	}
	m, k := f.w.Dims()
	phi, err := f.b.design(x, seq(m))
	if err != nil {
		return nil, nil, err
	}
	ybar := mat.NewDense(n, k, nil)
	mul(ybar, phi, f.w)
	v := mat.NewDense(n, k, nil)
	var ps mat.Dense
	for c, s := range f.sigmas {
		mul(&ps, phi, s)
		for i := range n {
			v.Set(i, c, math.Max(0, dot(ps.RawRowView(i), phi.RawRowView(i))))
		}
	}
	if f.mcAug != nil && augment {
		if err := f.mcAug.adjust(&f.fitted, denseOf(x), ybar, v); err != nil {
			return nil, nil, err
		}
		for i := range n {
			for c := range k {
				if a, s := ybar.At(i, c), v.At(i, c); math.IsNaN(a+s) || math.IsInf(a+s, 0) {
					return nil, nil, &NonFiniteError{What: "augmented activation", Row: i, Col: c, Value: a + s}
				}
			}
		}
	}
	return ybar, v, nil
}

// Latent returns the mean activations μₖᵀφ(x) (one row per row of x, one
// column per class, in the order of Classes) and their posterior
// variances φ(x)ᵀΣₖφ(x) (M7), independent across classes. It returns
// ErrNotFitted before a fit.
func (f *multiFit) Latent(x mat.Matrix) (*mat.Dense, *mat.Dense, error) {
	return f.activations(x)
}

// LatentPlain is Latent for the fitted model alone, without the
// augmentation at the row (A7), as Classifier.LatentPlain.
func (f *multiFit) LatentPlain(x mat.Matrix) (*mat.Dense, *mat.Dense, error) {
	return f.activationsAug(x, false)
}

// ProbPlugin returns the plug-in class probabilities at the mean
// activations μᵀφ(x): softmax(μᵀφ(x)) for the softmax model, (P9) with
// zero variances for the probit; one row per row of x and one column per
// class (Classes); every row sums to one.
func (f *multiFit) ProbPlugin(x mat.Matrix) (*mat.Dense, error) {
	ybar, _, err := f.activations(x)
	if err != nil || ybar.IsEmpty() {
		return ybar, err
	}
	if f.multiLik == Probit {
		n, k := ybar.Dims()
		return f.probitProbs(ybar, mat.NewDense(n, k, nil)), nil
	}
	n, k := ybar.Dims()
	out := mat.NewDense(n, k, nil)
	for i := range n {
		multiclass.SoftmaxTo(out.RawRowView(i), ybar.RawRowView(i))
	}
	return out, nil
}

// probitProbs returns (P9) at each row of the activations' means ybar
// and variances v.
func (f *multiFit) probitProbs(ybar, v *mat.Dense) *mat.Dense {
	n, k := ybar.Dims()
	out := mat.NewDense(n, k, nil)
	d, a := make([]float64, k-1), make([]float64, k-1)
	for i := range n {
		multiclass.ProbitProb(out.RawRowView(i), ybar.RawRowView(i), v.RawRowView(i), d, a)
	}
	return out
}

// Prob returns the predictive class probabilities with the posterior
// uncertainty of the weights taken into account. For the probit (P9),
// P(t = k) = E_u[∏_{j≠k} Φ((u√(1 + vₖ) + mₖ − mⱼ)/√(1 + vⱼ))] with the
// activations' means mₖ = μₖᵀφ(x) and variances vₖ = φ(x)ᵀΣₖφ(x), by
// quadrature: the exact predictive distribution of the fitted Q(W) up to
// the quadrature's error. For the softmax, the moderated
// softmax (M17), softmax(κ μᵀφ(x)) with κ = (1 + πv̄/4)^(−½) and v̄ the
// mean over classes of vₖ: the multi-class form of MacKay's moderation,
// which equals the binary classifier's for the difference of two
// activations. Every row sums to one.
func (f *multiFit) Prob(x mat.Matrix) (*mat.Dense, error) {
	ybar, v, err := f.activations(x)
	if err != nil || ybar.IsEmpty() {
		return ybar, err
	}
	if f.multiLik == Probit {
		return f.probitProbs(ybar, v), nil
	}
	n, k := ybar.Dims()
	out := mat.NewDense(n, k, nil)
	z := make([]float64, k)
	for i := range n {
		kappa := 1 / math.Sqrt(1+math.Pi*mat.Sum(v.RowView(i))/float64(k)/4) // (M17)
		for j, a := range ybar.RawRowView(i) {
			z[j] = kappa * a
		}
		multiclass.SoftmaxTo(out.RawRowView(i), z)
	}
	return out, nil
}

// PredictIndex returns the most probable class (an index into Classes) for
// each row of x: for the softmax the largest mean activation (plug-in
// and moderated probabilities give the same decision), for the probit
// the largest predictive probability (Prob), which is the largest mean
// activation too while the classes' variances are equal (one shared Σ).
func (f *multiFit) PredictIndex(x mat.Matrix) ([]int, error) {
	var ybar *mat.Dense
	var err error
	if f.multiLik == Probit {
		ybar, err = f.Prob(x)
	} else {
		ybar, _, err = f.activations(x)
	}
	if err != nil {
		return nil, err
	}
	if ybar.IsEmpty() {
		return []int{}, nil
	}
	n, _ := ybar.Dims()
	out := make([]int, n)
	for i := range n {
		row := ybar.RawRowView(i)
		for j, a := range row {
			if a > row[out[i]] {
				out[i] = j
			}
		}
	}
	return out, nil
}

// Predict returns the most probable class label for each row of x.
func (f *multiFit) Predict(x mat.Matrix) ([]string, error) {
	idx, err := f.PredictIndex(x)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = f.classes[j]
	}
	return out, nil
}

// labelIndex maps labels to class indices; a label the model was not
// trained on is a *LabelError.
func (f *multiFit) labelIndex(labels []string) ([]int, error) {
	pos := map[string]int{}
	for i, c := range f.classes {
		pos[c] = i
	}
	y := make([]int, len(labels))
	for i, l := range labels {
		j, ok := pos[l]
		if !ok {
			return nil, &LabelError{Row: i, Label: l, Reason: fmt.Sprintf("is not one of the model's classes %s", strings.Join(f.classes, ", "))}
		}
		y[i] = j
	}
	return y, nil
}

// ErrorRate returns the fraction of rows of x whose predicted class
// differs from labels. A label the model was not trained on is a
// *LabelError; mismatched lengths a *DimensionError.
func (f *multiFit) ErrorRate(x mat.Matrix, labels []string) (float64, error) {
	return f.meanOver(x, labels, func(y []int) (float64, error) {
		pred, err := f.PredictIndex(x)
		var e float64
		for i, p := range pred {
			if p != y[i] {
				e++
			}
		}
		return e, err
	})
}

// LogLoss returns the mean negative log predictive probability (Prob) of
// the true labels, −(1/N) Σₙ ln p(tₙ | xₙ), with probabilities clipped
// below at 1e-15 as scikit-learn's log_loss does. Errors as ErrorRate.
func (f *multiFit) LogLoss(x mat.Matrix, labels []string) (float64, error) {
	return f.meanOver(x, labels, func(y []int) (float64, error) {
		p, err := f.Prob(x)
		if err != nil {
			return 0, err
		}
		var s float64
		for i, c := range y {
			s -= math.Log(math.Max(p.At(i, c), 1e-15))
		}
		return s, nil
	})
}

// meanOver returns sum(y)/N for the class indices y of labels, checked
// against the rows of x (checkEval): the mean over the rows of the loss
// whose sum sum returns; 0 and the error where either fails.
func (f *multiFit) meanOver(x mat.Matrix, labels []string, sum func(y []int) (float64, error)) (float64, error) {
	y, err := f.checkEval(x, labels)
	if err != nil {
		return 0, err
	}
	s, err := sum(y)
	if err != nil {
		return 0, err
	}
	return s / float64(len(y)), nil
}

// checkEval returns the class indices of labels, checked against the
// rows of x, for the evaluation helpers.
func (f *multiFit) checkEval(x mat.Matrix, labels []string) ([]int, error) {
	if !f.hasPosterior() {
		return nil, ErrNotFitted
	}
	if x == nil {
		return nil, ErrNoData
	}
	n, _ := x.Dims()
	if n == 0 {
		return nil, ErrNoData
	}
	if len(labels) != n {
		return nil, &DimensionError{What: "number of labels vs rows of x", Got: len(labels), Want: n}
	}
	return f.labelIndex(labels)
}

// RelevanceVectors returns the training rows whose kernel functions are
// relevance vectors: active with |⟨wₘₖ⟩| > RelevanceThreshold for some
// class k, in training order: the union over classes.
func (f *multiFit) RelevanceVectors() []int {
	first := 0
	if f.b.bias {
		first = 1
	}
	var idx []int
	for i, r := range f.rows {
		for _, v := range f.w.RawRowView(first + i) {
			if f.unitWeight(first+i, v) > RelevanceThreshold {
				idx = append(idx, r)
				break
			}
		}
	}
	return idx
}

// Mean returns the posterior means of the weights, M × K: row m for
// active function m (the bias first if active, then the ActiveSet
// entries), column k for class k; 0 where m is not active in class k.
func (f *multiFit) Mean() *mat.Dense {
	if f.w == nil {
		return nil
	}
	return mat.DenseCopyOf(f.w)
}

// Alpha returns ⟨αₘₖ⟩, M × K and ordered as Mean; 0 where function m is
// not active in class k (its precision is then at the optimum of (M15),
// not recorded). For the probit the K columns are equal (⟨αₘ⟩ (P11)).
// A model read from a file of the former shared-α softmax model has nil.
func (f *multiFit) Alpha() *mat.Dense {
	if f.alphaK == nil {
		return nil
	}
	return mat.DenseCopyOf(f.alphaK)
}

// Covariance returns Σₖ (M4), the posterior covariance of class k's
// weights, ordered as Mean, with zero rows and columns for the functions
// not active in class k; for the probit, Σ (P3), the same for every k.
// It panics if k is not a class index of a fitted model, and returns
// nil for a model without a posterior.
func (f *multiFit) Covariance(k int) *mat.SymDense {
	if f.sigmas == nil {
		return nil
	}
	s := f.sigmas[k]
	return mat.NewSymDense(s.SymmetricDim(), append([]float64(nil), s.RawSymmetric().Data...))
}

// WithKernel returns an unfitted copy of c's configuration with kernel k
// and no Monitor.
func (c *MultiClassifier) WithKernel(k Kernel) *MultiClassifier {
	d := *c
	d.Kernel, d.Monitor, d.multiFit = k, nil, multiFit{}
	return &d
}

// HTML is String as an HTML table of properties and values, for notebooks.
func (c *MultiClassifier) HTML() string { return c.summarise().HTML() }

// String summarises the configuration and, once fitted, the fit.
func (c *MultiClassifier) String() string { return c.summarise().String() }

func (c *MultiClassifier) summarise() summary {
	k := orLearned(c.Kernel)
	if c.hasPosterior() {
		k = c.b.kernel
	}
	s := summary{name: "vrvm.MultiClassifier", config: []summaryRow{
		{key: "likelihood", value: c.Likelihood.String()}, row("kernel", kernelString(k)), row("solver", methodName(c.Method))}}
	if !c.hasPosterior() {
		s.status = c.status.String()
		return s
	}
	s.status = fmt.Sprintf("%s after %d iterations", c.status, c.iters)
	rv := fmt.Sprintf("%d (over all classes) of %d active functions", len(c.RelevanceVectors()), len(c.alpha))
	if c.b.bias {
		rv += " (bias active)"
	}
	s.rows = []summaryRow{
		{key: fmt.Sprintf("%d classes", len(c.classes)), sep: ": ", value: strings.Join(c.classes, ", ")},
		row("relevance vectors", rv), row("bound", fmt.Sprintf("%.6g", c.LowerBound()))}
	return s
}
