// Package vrvm implements the variational relevance vector machine of
// Bishop & Tipping, "Variational Relevance Vector Machines" (UAI 2000),
// for regression and for binary and multi-class classification, and the
// type-II maximum likelihood relevance vector machine of Tipping (2001)
// that the paper compares it with.
//
// Equation numbers in parentheses are the paper's; labels such as (S1),
// (T1) or (A1) name the parts the library adds to it, catalogued with
// their derivations in the repository's docs/design.md.
//
// # Model
//
// A prediction is a linear combination of M basis functions (1)
//
//	y(x, w) = Σₘ wₘ φₘ(x) = wᵀφ(x),
//
// where φ(x) = [1, K(x, x₁), …, K(x, x_N)]: an optional bias followed by one
// kernel function per training input, in training order (see Kernel,
// Gaussian, Polynomial, Linear, ARDGaussian, or supply any design matrix
// with FitDesign). Each weight has its own precision,
// p(wₘ | αₘ) = N(wₘ | 0, αₘ⁻¹) (4), with a Gamma hyperprior
// p(αₘ) = Γ(αₘ | a, b) (18). Integrating αₘ out gives a Student-t prior on
// wₘ that favours sparse solutions; weights whose αₘ grows large are
// switched off, and the training inputs whose kernels survive are the
// relevance vectors.
//
// Regression (section 4) adds Gaussian noise of precision τ (2) with
// p(τ) = Γ(τ | c, d). Classification (section 5) uses
// P(t = 1 | x, w) = σ(wᵀφ(x)) (8) with labels t ∈ {0, 1}; MultiClassifier
// extends it to K classes with a softmax (or probit) likelihood.
//
// # Variational posterior
//
// The posterior is approximated by Q(w) Q(α) Q(τ) (14), each factor set to
// its optimum (15) given the others in turn:
//
//	Q_w = N(w | μ, Σ)                                   (20)
//	Σ = (diag⟨αₘ⟩ + ⟨τ⟩ ΦᵀΦ)⁻¹,  μ = ⟨τ⟩ Σ Φᵀt           (23), (24)
//	Q_α = ∏ₘ Γ(αₘ | ã, b̃ₘ),  ã = a + ½,  b̃ₘ = b + ⟨wₘ²⟩/2 (22), (25)
//	Q_τ = Γ(τ | c̃, d̃),  c̃ = c + N/2,
//	                     d̃ = d + ½ Σₙ⟨(tₙ − wᵀφₙ)²⟩      (21), (26), (27)
//
// with ⟨αₘ⟩ = ã/b̃ₘ, ⟨ln αₘ⟩ = ψ(ã) − ln b̃ₘ, ⟨τ⟩ = c̃/d̃ and
// ⟨wₘ²⟩ = μₘ² + Σₘₘ. For classification the likelihood is bounded below
// with the Jaakkola–Jordan inequality (50)
//
//	σ(z) ≥ σ(ξ) exp{(z − ξ)/2 − λ(ξ)(z² − ξ²)},  λ(ξ) = tanh(ξ/2)/(4ξ),
//
// one ξₙ per training point, giving
//
//	Σ = (diag⟨αₘ⟩ + 2 Σₙ λ(ξₙ) φₙφₙᵀ)⁻¹,  μ = Σ Σₙ (tₙ − ½) φₙ   (54), (55)
//	ξₙ² = φₙᵀ⟨wwᵀ⟩φₙ = (μᵀφₙ)² + φₙᵀΣφₙ                         (58)
//
// and the same Q_α update (57).
//
// # Lower bound
//
// Every fit reports the lower bound L ≤ ln p(t) (12) after each iteration
// (BoundTrace). For regression it is the sum of (40)–(46)
//
//	⟨ln p(t|w,τ)⟩ = N/2 ⟨ln τ⟩ − N/2 ln 2π − ⟨τ⟩/2 Σₙ⟨(tₙ − wᵀφₙ)²⟩    (40)
//	⟨ln p(w|α)⟩   = −M/2 ln 2π + ½ Σₘ⟨ln αₘ⟩ − ½ Σₘ⟨αₘ⟩⟨wₘ²⟩          (41)
//	⟨ln p(α)⟩     = Σₘ{a ln b + (a − 1)⟨ln αₘ⟩ − b⟨αₘ⟩ − ln Γ(a)}       (42)
//	⟨ln p(τ)⟩     = c ln d + (c − 1)⟨ln τ⟩ − d⟨τ⟩ − ln Γ(c)              (43)
//	H[Q_w]        = M/2 (1 + ln 2π) + ½ ln|Σ|                             (44)
//	H[Q_α]        = Σₘ{ln Γ(ã) − (ã − 1)ψ(ã) − ln b̃ₘ + ã}                 (45)
//	H[Q_τ]        = ln Γ(c̃) − (c̃ − 1)ψ(c̃) − ln d̃ + c̃                    (46)
//
// and for classification ⟨ln F⟩ (60) replaces the first and the τ terms:
//
//	⟨ln F⟩ = Σₙ{ln σ(ξₙ) + (tₙ − ½)μᵀφₙ − ξₙ/2 − λ(ξₙ)(φₙᵀ⟨wwᵀ⟩φₙ − ξₙ²)}
//
// The bound never decreases after any single factor update; the tests
// check this on many random problems. With pruning the active model's L
// is not comparable from one iteration to the next, so the default
// solver reports the bound of the full model, every excluded function
// held at its own closed-form optimum (FullModelBound); the paper's
// schedule and the Newton solver report the active model's L, as the
// paper does.
//
// # Errata
//
// Several printed equations of the paper are wrong; this package uses the
// settled forms, derived in the repository's docs/ERRATA.md:
//
//   - (26): c̃ = c + N/2, not c + (N+1)/2: τ enters only the N likelihood
//     factors. The printed form can decrease the bound.
//   - (27): the ½ multiplies the whole expected squared error, and ⟨wwᵀ⟩
//     includes Σ; implemented as d + (‖t − Φμ‖² + tr(ΦΣΦᵀ))/2.
//   - (41): +½ Σ⟨ln αₘ⟩, not −½ (compare (61)).
//   - (45), (46): the printed right-hand sides are +⟨ln Q⟩; the entropies
//     above have the opposite sign.
//   - (59): the last term is −⟨ln Q_α⟩ (the ln is missing); (62): b̃ carries
//     the index m.
//
// # Predictions
//
// Regression: the predictive distribution (37)–(38) has mean μᵀφ(x) and
// variance 1/⟨τ⟩ + φ(x)ᵀΣφ(x) (Regressor.Predict); Latent omits the
// noise term. By default the variance is augmented at the test point
// (Rasmussen & Quiñonero-Candela 2005), so that it returns to the prior's
// far from the data instead of shrinking to the noise; NoAugment gives
// the paper's form. Classification: the plug-in probability σ(μᵀφ(x))
// (65) (Classifier.ProbPlugin) and MacKay's moderated probability
// σ(κ(s²) μᵀφ(x)), κ(s²) = (1 + πs²/8)^(−½), s² = φ(x)ᵀΣφ(x)
// (Classifier.ProbModerated), which pulls probabilities towards ½ where
// the weights are uncertain.
//
// # A tour of the API
//
// The estimators are values with documented option fields; the zero
// value of every field means its default, and Fit never writes them:
//
//	r := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}}
//	if err := r.Fit(x, t); err != nil { … }      // x: N × d, t: N targets
//	mean, variance, err := r.Predict(xTest)
//	fmt.Println(r.RelevanceVectors(), r.NoiseSD(), r.LowerBound())
//
// What the package holds:
//
//   - Regressor: the VRVM for regression; Classifier: binary labels 0/1;
//     MultiClassifier: K classes named by strings (IntLabels converts
//     numbers).
//   - RVMRegressor, RVMClassifier: the type-II maximum likelihood RVM of
//     Tipping (2001), the paper's baseline.
//   - Kernels: Gaussian, ARDGaussian (one length scale per input),
//     Polynomial, Linear, or any type with Eval; NamedKernel makes a
//     kernel of one's own savable (a Loader reads it back), and one that
//     implements Learnable can be learned. A nil Kernel means a Gaussian whose
//     width is chosen by the evidence of the dense model; LearnKernel with
//     Learning (KernelLearning) learns the kernel's parameters, for
//     Regressor by the same evidence (with ARD length scales, guarded
//     against the default width; docs/kernel-learning.md), for the
//     classifiers by the bound.
//   - Method is the algorithm that maximises the bound, a value with its
//     own fields: Sequential{} (the default; one basis function at a
//     time, in the manner of Tipping & Faul 2003, on the variational
//     bound), PaperSchedule{} (the paper's schedule) or Newton{}. They
//     reach fixed points of the same updates.
//   - Fitted state is read through accessors: Mean, Covariance, Alpha,
//     Xi, TauPosterior, NoiseSD, RelevanceVectors, ActiveSet,
//     LowerBound, FullModelBound, BoundTrace, Iterations, Status.
//   - FitContext stops when its context is cancelled and keeps the state
//     reached; a Monitor sees every iteration and can stop the fit.
//   - NoRescale (Classifier, MultiClassifier) fits a kernel exactly as
//     given, the paper's model, instead of dividing a kernel of large
//     values to unit root mean square ((U1) in docs/design.md).
//   - Stats accumulates the sufficient statistics ΦᵀΦ, Φᵀt, tᵀt and N of
//     a regression on a fixed Basis from blocks of rows (mergeable), and
//     Regressor.FitStats fits from them alone, for data read once.
//   - RobustRegressor: Student-t noise (Tipping & Lawrence 2005) for
//     targets with outliers (docs/robust.md).
//   - Save and Load (LoadMultiClassifier) write and read a model as JSON
//     with a checksum; String and HTML summarise a model for a terminal
//     or a notebook.
//   - Subpackages: datasets (the paper's data sets, generators, CSV,
//     standardisation), selection (cross-validated model selection),
//     vrvmplot (figures with gonum/plot).
//
// Inputs should be standardised (datasets.NewScaling); regression
// targets of any unit are handled by scaling the default priors with the
// targets' variance, (T1) in docs/design.md.
//
// # Pruning and convergence
//
// By default a basis function leaves the active set once its ⟨αₘ⟩
// exceeds PruneAlpha (100 for regression and 10 for classification,
// 10¹² for the RVM estimators, whose αₘ diverge); NoPrune keeps every
// function and iterates to the full model's fixed point. A fit converges
// when, over one iteration, the bound changes by at most Tol·max(1, |L|)
// and every monitored parameter (⟨αₘ⟩, ⟨τ⟩ or ξ) by at most ParamTol
// relative. Reaching MaxIter is reported as the Status IterationLimit,
// not as an error.
//
// # Relevance vectors
//
// RelevanceVectors reports, as in the paper's tables, the active kernel
// functions whose mean weight exceeds RelevanceThreshold = 10⁻³ in
// magnitude; ActiveSet reports every function still in the active set.
//
// # Errors
//
// Bad data returns an error naming the problem — NaN or ±Inf with row and
// column (*NonFiniteError), mismatched sizes (*DimensionError), no rows or
// columns, constant regression targets (ErrConstantTargets: there is
// nothing to learn, and τ has no finite initial value), labels not in
// {0, 1}, class numbers that are not integers, classes with a single row
// and labels a model was not trained on (*LabelError), a single class
// (ErrSingleClass), invalid options (*OptionError), a kernel returning NaN
// (*NonFiniteError with What "kernel value"), targets of a scale beyond
// float64's reach (ErrTargetScale), and a posterior precision that stays
// non-positive-definite after adding diagonal jitter
// (*NotPositiveDefiniteError). Prediction and Save on an unfitted model
// return ErrNotFitted; prediction at zero rows returns empty slices.
//
// # Fit contract
//
// A Fit that returns an error without a posterior of its own (bad data,
// an invalid option, a numerical failure) leaves the model exactly as it
// was: a model fitted before keeps its Status, predictions and
// accessors. A fit cancelled through its context keeps the state of the
// last iteration it completed, with Status Canceled; one cancelled before
// its first iteration (while it checks the data, chooses the default
// width or builds the design) holds no posterior, with Status Canceled.
// No accessor panics: on a model without a posterior (never fitted, or so
// cancelled) they return zero values (nil slices and matrices, 0, false;
// NaN for LowerBound and FullModelBound), and prediction and Save return
// ErrNotFitted.
//
// # Concurrency
//
// A fitted or loaded model may be used by any number of goroutines at
// once through its prediction methods (Predict, Latent, LatentPlain,
// ProbPlugin, ProbModerated, Prob, PredictIndex, ErrorRate, LogLoss), its
// accessors, String and Save. They only read the model, except for what
// the first prediction builds, which is built once under a sync.Once;
// each call gives the result it gives alone, to the bit. Fit and
// FitContext replace a model's state and must not run at the same time as
// any other method of the same value; separate values may be fitted at
// once, on the same inputs too, which a fit only reads. A model keeps its
// own copy of an ARDGaussian's Scales. A kernel of your own must not
// change after the fit, and its Eval must allow calls from several
// goroutines at once (predictions and fits evaluate the kernel by blocks
// of rows in parallel).
//
// # Notation
//
//	identifier      symbol
//	Prior.A, B      a, b     (shape and rate of p(αₘ))
//	Prior.C, D      c, d     (shape and rate of p(τ))
//	Alpha()         ⟨αₘ⟩
//	TauPosterior()  c̃, d̃     (⟨τ⟩ = c̃/d̃)
//	Mean()          μ
//	Covariance()    Σ
//	Xi()            ξ
//	LowerBound()    L
//
// # Further documentation
//
// In the repository: docs/ERRATA.md (the paper's corrections, derived),
// docs/design.md (the solvers and every part the library adds to the
// paper — the sequential solver's steps (S1)–(S15), target scale (T1),
// repeated rows (D1), the kernel rescaling (U1)–(U2), kernel learning
// (K1)–(K11), the default width (W1)–(W6), the augmented variance
// (A1)–(A9), the type-II RVM, the multi-class models (M1)–(M18) and
// (P1)–(P13) — with their derivations and where each is implemented),
// and docs/benchmarks.md (measurements, with dates and the machine).
// The notebooks derive the updates and the bound step by step.
//
// # References
//
//   - C. M. Bishop and M. E. Tipping. Variational relevance vector
//     machines. UAI 2000.
//   - M. E. Tipping. Sparse Bayesian learning and the relevance vector
//     machine. JMLR 1:211–244, 2001.
//   - M. E. Tipping and A. C. Faul. Fast marginal likelihood maximisation
//     for sparse Bayesian models. AISTATS 2003.
//   - C. E. Rasmussen and J. Quiñonero-Candela. Healing the relevance
//     vector machine through augmentation. ICML 2005.
//   - T. S. Jaakkola and M. I. Jordan. Bayesian parameter estimation via
//     variational methods. Statistics and Computing 10:25–37, 2000.
//   - D. Böhning. Multinomial logistic regression algorithm. Annals of the
//     Institute of Statistical Mathematics 44:197–200, 1992.
//   - M. Girolami and S. Rogers. Variational Bayesian multinomial probit
//     regression with Gaussian process priors. Neural Computation
//     18(8):1790–1817, 2006.
//   - I. Psorakis, T. Damoulas and M. A. Girolami. Multiclass relevance
//     vector machines: sparsity and accuracy. IEEE Transactions on Neural
//     Networks 21(10):1588–1598, 2010.
//   - M. Riedmiller and H. Braun. A direct adaptive method for faster
//     backpropagation learning: the RPROP algorithm. ICNN 1993.
package vrvm
