// Package vrvm implements the variational relevance vector machine of
// Bishop & Tipping, "Variational Relevance Vector Machines" (UAI 2000),
// for regression and binary classification, and the type-II maximum
// likelihood relevance vector machine of Tipping (2001) that the paper
// compares it with.
//
// # Model
//
// A prediction is a linear combination of M basis functions (1)
//
//	y(x, w) = Σₘ wₘ φₘ(x) = wᵀφ(x),
//
// where φ(x) = [1, K(x, x₁), …, K(x, x_N)]: an optional bias followed by one
// kernel function per training input, in training order (see Kernel,
// Gaussian, Polynomial, Linear, or supply any design matrix with
// FitDesign). Each weight has its own precision, p(wₘ | αₘ) = N(wₘ | 0, αₘ⁻¹)
// (4), with a Gamma hyperprior p(αₘ) = Γ(αₘ | a, b) (18). Integrating αₘ out
// gives a Student-t prior on wₘ that favours sparse solutions; weights whose
// αₘ grows large are switched off, and the training inputs whose kernels
// survive are the relevance vectors.
//
// Regression (section 4) adds Gaussian noise of precision τ (2) with
// p(τ) = Γ(τ | c, d). Classification (section 5) uses
// P(t = 1 | x, w) = σ(wᵀφ(x)) (8) with labels t ∈ {0, 1}.
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
// The bound never decreases after any single factor update; the tests check
// this on many random problems.
//
// With pruning, the active model's L is not comparable from one iteration
// to the next: every function added lowers it by about ln Γ(a) (12.4 nats
// for the default prior) plus what it explains. The default solver
// (Sequential) therefore reports, in BoundTrace, Progress.Bound and
// LowerBound, the bound of the full model with all N + 1 functions, each
// excluded one held at a factor of the closed form of FullModelBound, set
// to its optimum now and then (S4 in sequential.go; FullModelBound sets
// all of them at the end): its weight updates and additions never lower
// it; three steps can:
// removing a function whose ⟨αₘ⟩ crossed PruneAlpha lowers it by that
// function's contribution (S2) (in the final polish, by less than 0.1
// nat; pruning trades bound for sparsity, (S5) in sequential.go),
// holding an ⟨αₘ⟩ at a threshold lowered by the annealing, and
// the Q_τ or ξ update, which is the paper's and optimal for the active
// model, ignores how the excluded functions' terms depend on τ or ξ. On
// small problems the solver then fits a second time, from 30 iterations
// of the paper's schedule, and keeps the fit with the higher full-model
// bound; if that is the second, its bound ends the trace as one more
// iteration (S6 in seqrestart.go). The paper's schedule and the Newton solver report the active model's L, as
// the paper does.
//
// # Errata
//
// Several printed equations of the paper are wrong; this package uses the
// settled forms (derivations in the project's shared ERRATA.md):
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
// noise term. Classification: the plug-in probability σ(μᵀφ(x)) (65)
// (Classifier.ProbPlugin) and MacKay's moderated probability
// σ(κ(s²) μᵀφ(x)), κ(s²) = (1 + πs²/8)^(−½), s² = φ(x)ᵀΣφ(x)
// (Classifier.ProbModerated), which pulls probabilities towards ½ where
// the weights are uncertain.
//
// # Pruning and convergence
//
// With the default priors a = b = 10⁻⁶, ⟨αₘ⟩ ≤ (a + ½)/b = 5·10⁵, and the
// ⟨αₘ⟩ of irrelevant weights do not diverge: they settle around 10²–10⁴
// and converge only linearly, with rate about 1 − 4b⟨αₘ⟩. Iterating all
// N + 1 functions to the fixed point (NoPrune) takes 10⁴–10⁵ iterations.
// By default a basis function leaves the active set once its ⟨αₘ⟩ exceeds
// PruneAlpha, by default 100 for regression and 10 for classification
// (1e12 for the RVM estimators, whose αₘ diverge). Measured on the
// paper's problems (25 sinc sets of 100 points, Gaussian width 3; 10
// Ripley subsets of 100 points, width 0.5), these
// thresholds give 6.2 relevance vectors and RMS error 0.0365 on sinc
// (unpruned: 38 vectors, 0.0342) and 4.5 vectors and 9.47% test error on
// Ripley (unpruned: 26.2 vectors, 9.48%), with fits several times faster.
// A higher threshold keeps more functions and approaches the unpruned fixed
// point; the lower bound reported with pruning is that of the pruned model.
// Those figures are for the paper's schedule (Solver PaperSchedule). The
// default solver, Sequential, adds and removes functions one at a time by
// the same threshold and keeps somewhat fewer (4.9 vectors and RMS error
// 0.0349 on the 25 sinc sets, 4.0 vectors and 9.41% on Ripley); see
// Solver. Whatever the solver, FullModelBound is the bound of the full
// model, every pruned function held at its own closed-form optimum.
//
// PruneAlpha compares ⟨αₘ⟩, whose scale is that of 1/wₘ²: multiplying a
// basis function by c divides its weight by c and multiplies its ⟨αₘ⟩ by
// c². The thresholds above were measured on Gaussian kernels, whose
// values are at most 1. So that classification's threshold means the
// same for any kernel and any scale of the inputs, the classifiers'
// solvers (Classifier, MultiClassifier) see every basis function with a
// root mean square over the training inputs at most about 1:
//
//	K̃ = K/s,  s² = mean of K(xᵢ, xⱼ)² over up to 256 training inputs
//	             spread through them, if s > 1; a user design's column
//	             φₘ/sₘ, sₘ² = (1/N)Σₙφₘ(xₙ)², if sₘ > 1        (U1)
//
// (the bias is not divided; Gaussian kernels are never divided, so every
// Gaussian fit is unchanged; NoRescale turns (U1) off and fits the
// paper's model with the kernel as given). The Gamma prior Γ(a, b) is then on the
// precision of the divided function's weight, whose contribution to the
// activations has variance mean(φ̃ₘ²)/αₘ: the model is the same whatever
// the scale of a large kernel or design column, and the inputs times 10
// with a linear kernel give the bound, relevance vectors and predictions
// of the inputs (TestUnitScaleKernel). The fitted model is stated in the
// units of the kernel given: with dₘ the divisor,
//
//	wₘ = w̃ₘ/dₘ:  μₘ = μ̃ₘ/dₘ,  Σₘₗ = Σ̃ₘₗ/(dₘdₗ),  ⟨αₘ⟩ = dₘ²⟨α̃ₘ⟩      (U2)
//
// and RelevanceThreshold applies to dₘ|μₘ| (the divisors are saved with
// the model). Measured with the linear kernel on the standardised
// real-world splits (test error and log loss, before → after (U1)):
// digits, 10 classes, 64 inputs, s = 13.6: no relevance vector (every
// ⟨αₘ⟩ above 10: a constant model, 89.8%) → 15, 13.2%, 0.378; iris 20.0%
// → 15.6%; wine 0% → 7.4% (4 test rows; the bound rises from −4,686.7
// to −4,672.7); digits 3 vs 8 4.63% → 4.63%, log loss 0.131 → 0.261
// (bound −3,149.0 → −3,115.7); breast 3.51% → 3.51%. On raw,
// unstandardised inputs breast went from the bias alone to 10 test
// errors of 171. The sparse linear-kernel model stays weaker than a dense
// linear one: its functions are N directions in a d-dimensional space,
// and ARD keeps few of them.
//
// Regression keeps its functions at their own scale (as the type-II RVM,
// whose estimate does not depend on it): its threshold is 10 times
// higher, and (U1) on the paper's Boston problem (the cubic polynomial
// kernel, s = 5.0, dominated by a few outlying rows) made the paper's
// schedule converge 10 times slower (4 of the 10 Table 2 fits reached
// 10,000 iterations) and left the default solver below the schedule's
// bound on 7 of the 10 splits, with test MSE 10.74 and 10.76 against
// 10.40 and 10.95.
//
// A fit converges when, over one iteration, the bound changes by at most
// Tol·max(1, |L|) and every monitored parameter (⟨αₘ⟩, ⟨τ⟩ or ξ) by at most
// ParamTol relative. The Sequential solver also stops when, with an
// unchanged active set, the bound has gone up and down over 100
// iterations and risen by at most Tol relative (S9, stalled): the ⟨αₘ⟩
// of nearly collinear functions then move along directions the bound
// cannot tell apart in floating point (280 functions at width 8 for a
// target linear in 3 inputs: the iteration limit, 10,000 iterations and
// 150 s, before; 494 iterations and 7 s after, at a bound 0.23 nat
// higher). The same window ends a fit whose full-model bound falls at
// every step (a decrease is never a reason to go on): a classifier on
// well separated classes, whose weights keep growing while the ξ update,
// optimal for the active model, costs the excluded functions' terms a
// little each time (digits 3 vs 8 at the learned width: 9,445 iterations,
// the bound falling 0.006 nat from its value at iteration 236, before;
// 115 iterations and 0.4 s CPU instead of 2.3 s after, with the same
// relevance vectors and test error; TestFallingBoundStops). In a large
// regression set the fall is left to (S15), whose full addition round
// finds the functions a shortlist misses: there the window alone ended
// 40,000 and 100,000 rows of a smooth target 37 and 112 nats lower, with
// 1.2 and 2.5 % more error against the noise-free function. Reaching
// MaxIter is reported as the Status IterationLimit, not as an error. A Monitor can watch each iteration and
// stop the fit; FitContext stops when its context is cancelled and keeps
// the state reached.
//
// # Target scale
//
// The regression model is equivariant in the targets' scale only with
// its hyperparameters: multiplying t by c multiplies μ by c, Σ by c², and
// divides ⟨αₘ⟩ and ⟨τ⟩ by c², which leaves every update the same if the
// rates b and d, Alpha0 and PruneAlpha change with them. The defaults
// were chosen on targets of about unit scale (sinc, variance about 0.1;
// standardised Boston). For targets of population variance v outside
// [v₀, 1], v₀ = 10⁻² (minTargetVar), Regressor takes its zero-valued
// hyperparameters as
//
//	b = d = 10⁻⁶·s,  Alpha0 = 1/s,  PruneAlpha = 100/s,                 (T1)
//	s = v above 1,  s = v/v₀ below v₀,
//
// the same fit as on t/√s stated in the targets' units (the bound then
// differs by the constant N ln √s plus the prior's normalisers); vrvm
// fit, which standardises the targets, is unaffected, and so are targets
// of variance in [v₀, 1] (TestTargetScale). Below v₀, RelevanceVectors
// compares |⟨wₘ⟩|/√s with RelevanceThreshold (the divisors (U2) of the
// model file hold 1/√s), and RVMRegressor takes its zero-valued
// PruneAlpha and Alpha0 the same way (10¹²/s, 1/s), its only defaults in
// the targets' units. Before the lower end was added, sinc's targets
// times 0.1 (variance about 10⁻³; vrvm fit -standardize=false, 200 rows,
// noise sd 0.1 before scaling) had 3.3 times the RMS error of the
// unscaled fit relative to their scale (0.0794 against 0.0241), and times
// 10⁻³ or less no relevance vector (RVMRegressor: the same fit, but one
// relevance vector counted at 10⁻³ and a constant model at 10⁻⁹); now
// every scale from 10⁻⁵⁸ to 0.1 gives 0.0244 with 9 relevance vectors
// (RVMRegressor 0.0201 with 5), the fit of the targets at variance 0.01
// (times 0.3, inside [v₀, 1]: 0.0243 with 9). Targets of standard
// deviation beyond 10⁶⁰ or below 10⁻⁶⁰ are
// refused with ErrTargetScale: there products of squared weights and
// precisions leave float64's range (no function to add at 10⁻⁸⁰ times
// sinc, no Cholesky factor at 10⁸⁰ times). Measured (internal/learneval,
// raw targets): diabetes (v = 6,286) RMSE 57.02 → 55.16, ±2σ coverage
// 0.925 → 0.925, 63 → 4 relevance vectors; Friedman #1 (N = 1,000)
// 0.9167 → 0.8801, coverage 0.977 → 0.981; the 25 sinc sets and the
// paper's 47 problems unchanged. A target linear in 10 of 50 inputs (sd
// 194, 420 rows, width 79.7) got the mean before (test RMSE 184.6: 420
// functions held near ⟨αₘ⟩ ≈ 20, far too large for weights in the
// hundreds); with (T1) 1.65, and the targets times 0.01 give the same
// predictions to 10⁻⁸. A threshold-only version (PruneAlpha/v alone)
// gave diabetes 58.23 with coverage 0.902: Alpha0, where the paper's
// schedule of the second start (S6) begins, matters too.
//
// In standardised units the sequential solver met a weakness that the
// targets' scale had hidden on some problems and not on others: smooth
// targets under wide kernels (y = 3x₀ − 2x₁ + 0.1ε on 280 rows), where
// it stopped at 10–28 functions and a noise sd of 0.14–0.19 on 6 of 8
// seeds (3 of 8 without (T1)). The solver changes made with (T1), the
// second start (S6) allowed up to seqRestartFlopsReg for regression, the
// start annealed from a higher threshold (S10) and the rule on collinear
// candidates (S11), fit all 8 (seqwide.go). With them, diabetes ends at
// a full bound 4.1 nats higher (−5,533.40 against −5,537.52; the second
// start (S6), now affordable at 310 functions) with RMSE 58.47, coverage
// 0.917 and 12 relevance vectors; Friedman #1 (above the cost limit) and
// the classifiers are unchanged, and the 25 sinc sets give 0.0379.
//
// # Repeated rows
//
// Under the noise model (2) two targets are never equal, so a row whose
// inputs and target both equal an earlier row's is one observation
// recorded twice, not a second measurement. Fitted as two, every such
// pair is evidence that the noise is zero there: the likelihood of the
// pair grows without bound as τ grows if the model passes through it,
// and the dense model's evidence (W4) and the bound then prefer narrow
// kernels that interpolate. Regressor.Fit therefore fits each distinct
// row once (KeepDuplicates fits them all):
//
//	rows fitted = the first of each group of rows equal in x and t     (D1)
//
// Measured on Friedman #1 (d = 10, noise sd 1) with 300 of 800 rows
// repeated, 770 training and 330 test rows (133 of them also training
// rows; vrvm fit, default settings): every row fitted, width 1.85, 628
// relevance vectors, noise sd 0.0006, test RMSE 1.591, ±2σ coverage
// 0.403, 67 s CPU; each distinct row once (141 left out), width 4.81, 54
// relevance vectors, noise sd 1.37, RMSE 1.359, coverage 0.955, 5 s
// (TestRepeatedRows: noise sd 0.0006 against 1.02, the truth 1). Rows that
// repeat the inputs with other targets are kept: they are repeated
// measurements, and tell the noise level truly. Classification keeps
// every row: its likelihood is bounded, and a repeated row only weighs
// twice.
//
// # Layout
//
// The estimators (Regressor, Classifier, RVMRegressor, RVMClassifier,
// MultiClassifier) share one fitted state (fitted.go), whose accessors and
// Save method are written once; the four binary ones satisfy the
// Estimator interface, what model selection, the paper's experiments and
// the command line need of them. A variational fit is
// a likelihood (likelihood.go: Gaussian noise with Q_τ in noise.go, the
// Jaakkola–Jordan bound with ξ in jaakkola.go) handed to one of three
// solvers, one file each (sequential.go, schedule.go, newton.go), which
// talk to the likelihood only through its interface and evaluate L only
// through the functions of bound.go. Kernels are open: any type with Eval
// is a kernel, RegisterKernel makes it savable. A regression on a fixed
// Basis can be fitted from the sufficient statistics of its rows alone
// (stats.go: Stats, Regressor.FitStats), by the paper's schedule, for
// data read once in blocks.
//
// Where each equation is implemented:
//
//	(1), (37)–(38)          fitted.latentTo (by blocks of rows, block.go),
//	                        regressionFit.Predict
//	(23)–(24), (54)–(55)    scheduleState.updateW, seqFit.rebuild, woodQ.solve,
//	                        with B and y from likelihood.weights and .data
//	(25), (57)              gammaQ.update; (S1) alphaRoot, the exact
//	                        coordinate optimum of the sequential solver;
//	                        alphaRootUpTo, its optimum at ⟨αₘ⟩ ≤ PruneAlpha
//	(S2), (S5)              seqFit.contribution, sweep, bestAddition
//	(S6)                    restartFit: the second start from the schedule
//	(S7)                    seqFit.newtonTail: joint steps on the collapsed
//	                        bound where coordinate ascent crawls
//	(S8)                    biasFit: the second start from the bias
//	(S9)                    stalled: convergence of a bound stalled at
//	                        its rounding errors, or falling
//	(S10)                   wideFit: the start annealed from a higher
//	                        threshold
//	(S11)                   seqCollinear: candidates in the span of the
//	                        active functions are not added
//	(S12)                   seqFit.overrelax: overrelaxed steps in
//	                        (ln⟨α⟩, ln ξ) where a classifier crawls
//	(S13)                   biasFit, nearlyConstant, explainsLittle: the
//	                        bias start (S8) after a classifier's nearly
//	                        constant fit
//	(S14)                   exactBest, exactAddition: an addition's sₘ as
//	                        the minimum it is where its plain form is
//	                        mostly rounding (seqexact.go)
//	(S15)                   seqFit.crawled: the end of a large set's
//	                        crawl where (S7) is not affordable
//	(26)–(27)               gaussLik.update
//	(58)                    logitLik.update
//	(40), (43), (46)        gaussLik.terms
//	(41)–(42), (44)–(45),
//	(61)–(64)               weightTerms
//	(60)                    logitLik.terms
//	(50)                    JJBound, Lambda
//	(65)                    classificationFit.ProbPlugin
//	full-model bound        excludedTerm, excludedBound (FullModelBound)
//	(K1)–(K2)               ARDGaussian.Eval, Gaussian.logGrad, ARDGaussian.logGrad
//	(K3)–(K6)               fixedQ.eval, chainKernel
//	(K7)–(K8), (K11)        learnWith, KernelLearning.scalePrior, .spreadPrior
//	(W1)–(W3)               denseModel.evidence
//	(W4)                    denseWidth, fitted.defaultWidth
//	(W6)                    denseModel.evidence, denseWidth
//	(W5)                    fitted.fitWidened, seqFit.effective
//	(C1)                    learnWith, binaryTarget.fit, secondFit
//	(C2)                    evidenceStart
//	(C3)                    classCrowded, classLeverage, binaryTarget.fit
//	(C4)                    learnKernel, binaryTarget.memorising
//	(K9)–(K10)              mcFixedQ.eval, .excludedSlope
//	(A1)–(A6), (A8)         augmentation.adjust, augmentBlock, augRows, alphaStar; NoAugment
//	(A7)                    mcAugmentation.adjust, newMCAugmentation
//	(A9)                    constantDiagonal, newAugmentation, MultiClassifier.fit
//	(U1)                    unitKernel, scaledKernel, designScales
//	(T1)                    targetScale
//	(D1)                    distinctData, Regressor.fit
//	(U2)                    basis.divisors, unscaleMean, unscaleAlpha,
//	                        unscaleSym; fitted.unitWeight
//
// # Learning the kernel
//
// With LearnKernel the kernel's parameters θ (the width r of Gaussian, the
// length scales ℓₖ of ARDGaussian (K1)) are learned by maximising the
// full-model bound V(θ) = max_Q L(Q, θ) (FullModelBound), in the
// logarithms u = ln θ:
//
//	K(x, x') = exp(−Σₖ (xₖ − x'ₖ)²/ℓₖ²)                              (K1)
//	∂K/∂ln ℓₖ = 2K (xₖ − x'ₖ)²/ℓₖ²,   ∂K/∂ln r = 2K ‖x − x'‖²/r²     (K2)
//
// L depends on the design Φ only through the (bounded) expected
// log-likelihood, Σₙ[yₙmₙ − ½Bₙ(mₙ² + vₙ)] + const with mₙ = μᵀφₙ and
// vₙ = φₙᵀΣφₙ (y = ⟨τ⟩t, B = ⟨τ⟩I from (40); y = t − ½, B = 2Λ(ξ) from
// (60)), and through the excluded functions' terms of the full-model
// bound (excludedTerm, with sⱼ = φⱼᵀBφⱼ):
//
//	F(θ) = Σₙ[yₙmₙ − ½Bₙ(mₙ² + vₙ)]                                   (K3)
//	     + Σ_{j excluded} excludedTerm(sⱼ),
//	d excludedTerm/ds = −½/(αⱼ + sⱼ)                                  (K4)
//
// (K4) by the envelope theorem, αⱼ being the maximiser. So, at fixed Q,
//
//	∂F/∂Φ_A = (y − Bm)μᵀ − BΦ_AΣ          (active columns)           (K5)
//	∂F/∂φⱼ = −Bφⱼ/(αⱼ + sⱼ)              (excluded columns)
//	∂F/∂uₖ = Σₙⱼ (∂F/∂Φₙⱼ) ∂K(xₙ, xⱼ)/∂uₖ                             (K6)
//
// (for regression (K5) is ⟨τ⟩((t − Φμ)μᵀ − ΦΣ)). At a Q where L is
// stationary the envelope theorem makes (K6) the gradient of V. Learning
// alternates solver fits with a step on each uₖ in the direction of the
// sign of (K6) (Rprop: the step doubles while the sign persists, halves
// when it flips), and keeps the fit with the largest V:
//
//	uₖ ← uₖ + δₖ sign(∂V/∂uₖ)                                          (K7)
//
// Two facts, measured on Friedman #1 (N = 1,000, ARD), shape the rule.
// (K6) is the gradient of V only infinitesimally: at the fixed Q, F
// falls by 3,000 nats for a step of 0.1 in every uₖ, while V, refitted,
// changes by 2; so steps are taken by sign and judged by refits. And a
// refit from an empty model can end in another local maximum of the
// Sequential solver (174 active functions at the start, 859 after a
// step of 0.25 in every uₖ), so V jumps with θ by 5–20 nats: each step
// therefore refits from the best fit's active set, ⟨α⟩ and Q_τ (or ξ),
// every other step also from an empty model, and keeps the better (a
// cold refit at every step doubled the cost, to 12 fits' worth at
// N = 300, for V within a nat on all but one of seven test problems). A fit whose V
// falls below the best is undone (iRprop+): the next step leaves the
// best fit again, with δₖ halved for the parameters whose gradient
// changed sign at the rejected θ (for every one if none did). Every
// length scale moves on its own from the first step: moving them
// together along Σₖ ∂V/∂uₖ, as an earlier version did, hid opposite
// signs (−241 and −264 for inputs 1 and 2, +39 to +78 for the others at
// the start) behind a small positive sum, so that the tied steps went
// the wrong way for inputs 1 and 2 and lowered V. An ARD length scale
// that has grown beyond 10 standard deviations of its input, where K
// hardly depends on the input, and whose gradient still asks for more is
// tried at the upper bound (the input switched off) in a refit of its
// own from the best fit, with no other step; the simpler model is kept
// unless V falls by more than one nat (below the refits' own scatter), a
// switched-off input stays off, and a rejected one is tried again only
// once its ℓₖ has doubled. An earlier version tried the switch in the
// same refit as the other steps, and only once: on Friedman #1 it was
// tried with a relevant input's growing scale, rejected, and the
// irrelevant scales ended at 8–313, only 3× the relevant 0.7–2.8; now
// inputs 6–10 are switched off (ℓ ≈ 2·10⁵) and the relevant scales are
// 0.6–3.1. A refit whose trace has not passed the bound it must beat
// (the best V, or a nat below it for inputs switched off) after
// 4·I + 200 iterations, I the most any finished fit of this learning
// took, is abandoned and its step rejected, with every δₖ halved (its Q
// is not at a maximum, so its gradient is not used): the trace is a lower
// bound on the fit's full-model bound that never decreases, and such fits
// crawl. On 461 rows of an eight-input two-class problem (scikit-learn's
// make_classification, five informative inputs; standardised), the
// third refit, at width 0.82 after a step from 2.26, ran to the
// iteration limit of 10,000 twice (cold and warm), its bound rising by
// 10⁻⁵ nats an iteration while the weights of a cluster of one class grew
// past 4,000, and ended 49 nats below the best; learning took 43 s,
// and 5.9 s with the budget (748 iterations), at the same width and
// bound. Learning stops after KernelLearning.MaxRefits fits (8, or 12
// for ARDGaussian's d scales) or when every δₖ is below 0.02. With
// more than KernelLearning.MaxRows training rows (500 by default), θ is
// learned on that many rows spread evenly through the training set and
// the model is then fitted on every row at the learned θ, so that
// learning costs a small multiple of one fit (LearnTrace then holds the
// bounds of the fits on those rows).
//
// A nil Kernel of Classifier and MultiClassifier means this procedure
// for a Gaussian width started from the inputs' MedianDistance: the
// default kernel is learned, not fixed. Regressor's default width is
// chosen by another criterion (next section).
//
// # The default width
//
// A nil Kernel of Regressor means the Gaussian width that maximises the
// evidence of the dense model, every kernel function kept with one shared
// weight precision α, the noise precision β and a bias with a flat prior
// (width.go, (W1)–(W4)): a closed form once PKKP is decomposed (one m × m
// eigendecomposition per width, m ≤ Learning.MaxRows = 500 rows spread
// through the data), with α and β at their type-II maximum (MacKay
// 1992), searched on ln r from the inputs' MedianDistance by halving (at
// most 4 times, a factor 16: further in the kernel matrix is the identity)
// or doubling (at most 3 times, a factor 8: further out a Gaussian kernel
// is the bias plus a linear term to within (d/r)², which the sparse
// solver does not assemble from functions nearly collinear with the bias
// even from the bias start (S8); width.go) and then parabolic
// interpolation to 5 %. The sparse model is then fitted at that width,
// or at a multiple of it (W5, below). The dense model includes the
// noise alone (α = ∞), so E(r) is at least the evidence of the noise,
// the same at every width:
//
//	E(r) ≥ E∞ = −½(m − 1)[ln 2π + ln(‖t̃‖²/(m − 1)) + 1]                  (W6)
//
// which it reaches where the targets project on the kernel's directions
// no more than noise does (MacKay's fixed point then runs to α = ∞). If
// E is E∞ at the MedianDistance and both its neighbours, the search
// evaluates every width of its range and takes the best, or the
// MedianDistance if none is above E∞. Before (W6) the iteration ran α
// to overflow and the fit failed with "the evidence at width … is NaN":
// vrvm fit on 2 of 7 sets of pure noise on 10 inputs measured 5 times
// each (repeated measurements are kept, (D1)); now all 7 fit, noise sd
// 0.78–1.04 (truth 1), and 8 such sets and 8 of sinc (20 inputs × 5,
// noise sd 0.1) give noise sd 0.83–1.09 and 0.092–0.105
// (TestDefaultWidthNoSignal); internal/learneval is unchanged.
// The full-model bound of the sparse model, which learning by the bound
// maximises, prefers narrower widths than predict best: its N excluded
// terms tilt it by about √(2bs) each (above), and with one αₘ per
// function the sparse model's evidence rewards fitting the training
// targets with a few well-placed narrow functions. The dense model's
// evidence, like a Gaussian process's marginal likelihood, has one
// precision to fit and no such tilt. Measured (internal/learneval; the
// previous default, the width learned by the bound, in parentheses; before
// the target scaling (T1) and (S6), (S10), (S11), with which diabetes gives
// 58.47 and Friedman #1 0.880 at the same widths, "Target scale"):
//
//	diabetes      RMSE 57.02, ±2σ coverage 0.925, width 5.37   (59.68, 0.902, width 3.43)
//	Friedman #1   RMSE 0.898 (N = 1,000, width 1.28)             (1.044, width 0.94)
//	25 sinc sets  RMS error 0.0387, 5.4 vectors                  (0.0433, 7.3)
//	sinc N = 4,000, seeds 1–5: RMS error 0.00534, widths 2.5–3.2, 13–20 vectors   (seed 1: 0.0117, width 0.55)
//	    (with the bias start, (S8) of seqbias.go: RMS 0.00550, 11–29 vectors)
//	Boston (command line, 99 rows, 40 held out): RMS 5.43, 36 of 40 inside ±2σ, width 8.56
//	    (6.93, 28 of 40, width 2.29); raw inputs RMS 9.27, 37 of 40 (9.53, 36 of 40),
//	    measured when the search could double 4 times (raw: width 2684)
//
// The sparse model can fail at the dense model's width where the dense
// model does not: with many inputs, most of them irrelevant, distances
// concentrate, and each kernel function is a smooth part common to its
// neighbours plus a spike of height about 1 − exp(−d²ₙₙ/r²) at its own
// row (dₙₙ the distance to the nearest other row). With one αₘ per
// function the sparse model can give every row its own spike, which acts
// as a per-row noise variance; the bound then rises as ⟨τ⟩ → ∞ and the
// fit interpolates, keeping nearly every row, while a test point, which
// has no spike, gets the noise variance only. The fit at the width of
// (W4) is therefore checked:
//
//	γ = Σₘ(1 − ⟨αₘ⟩Σₘₘ) > N/2  ⇒  fit again at twice the width             (W5)
//
// at most widthMaxUp times, keeping the first fit with γ ≤ N/2 (or the
// last): the noise estimate of a fit with γ > N/2 rests on fewer than
// half the rows (the command line's warning says the same of any fit).
// The sequential solver stops a fit as soon as its γ passes N/2, so a
// crowded fit costs little (fitWidened, TestDefaultWidthWidened).
// Measured with vrvm fit and predict (scikit-learn's make_friedman1, 5
// relevant inputs and the rest noise, 70/30 splits, test RMSE, ±2σ
// coverage, CPU; before → after; scikit-learn's GaussianProcessRegressor
// with RBF and white-noise kernels, then ARDRegression):
//
//	50 inputs, 420 rows, noise 1     2.942, 0.02, 80 s, width 8.26 → 2.850, 0.93, 3.7 s, 16.5   GPR 2.845, 0.95; ARD 2.620, 0.96
//	20 inputs, 420 rows, noise 1     2.298, 0.00, 69 s, width 4.90 → 2.709, 0.90, 4.8 s, 9.80   GPR 2.264, 0.97; ARD 2.701, 0.93
//	50 inputs, 700 rows, noise 0.5   2.663, 0.00, 297 s, width 8.41 → 2.605, 0.94, 6.9 s         GPR 2.599, 0.94; ARD 2.530, 0.95
//	100 inputs, 350 rows, noise 1    2.981, 0.03, 46 s, width 11.4 → 2.877, 0.91, 2.1 s          GPR 2.834, 0.97; ARD 2.577, 0.95
//
// (before: γ = 412, 417, 695 and 342, noise sd 0.026, 0.008, 0.007 and
// 0.045; after: 29–64 functions, noise sd 1.9–2.4, which also holds
// the misfit of the irrelevant inputs.) On the 20-input set the test
// error rises: at 6.9 (×√2) the fit has γ below N/2, RMSE 2.297 and
// coverage 0.65 (noise sd 1.01, the true one; a test point far from the
// relevance vectors gets no more), and doubling trades that for 0.90.
// Unchanged: a target linear in 10 of 100 inputs (width 112.8, 5.938,
// 0.96), diabetes, Friedman #1 (10 inputs), the 25 sinc sets and
// Friedman #1 at N = 300 (internal/learneval), where the first fit's γ is
// far below N/2.
//
// The same limit holds where the bound, not (W4), picks among fits of a
// regression (C1). In kernel learning (LearnKernel: vrvm fit -width auto,
// -kernel ard) every refit stops as soon as its γ passes N/2 and is
// rejected like a step that lowers V (its gradient is not used); a
// crowded first fit starts learning again from twice the scales, at most
// widthMaxUp times, then without the limit. A second start ((S6), (S8),
// (S10)) of a fit whose γ is at most N/2 stops, and is not kept, as soon
// as its own γ passes N/2. Both override the bound, which prefers the
// crowded fit: on Friedman #1 with 45 noise inputs (datasets.Friedman1,
// 420 rows, seed 3, width 12) the start from the paper's schedule climbs
// to a fit of every row with a bound 106 nats higher (γ 419.2, noise sd
// 0.014, test coverage 0.01) in 285 s, against the first fit's 32
// functions (γ 28.4, noise sd 2.5, coverage 0.93, 4 s with (C1);
// TestSecondStartCrowded); learning from the median distance on 120 of
// its rows ends at γ 116.9 and coverage 0.00 without (C1), 40.5 and 0.65
// with it (TestLearnCrowded).
//
// A learned Gaussian width of a regression starts from the width of the
// dense model's evidence (W4) on the learning rows, not from the
// MedianDistance (C2), where the user gives no width. With many inputs
// the median distance can be too narrow for every sparse fit near it: for
// a target linear in 10 of 100 inputs the fits there are either crowded,
// now rejected by (C1), or the constant model, from which the bound's
// gradient points narrower again, and learning ended at the constant
// model; from the evidence's width it explains the targets
// (TestLearnEvidenceStart: noise sd 57.3, the targets' own, against 4.82
// with the true 5). ARD length scales still start from the median
// distance: from the evidence's width, learning on Friedman #1 (N =
// 1,000, raw inputs) kept two of the five irrelevant inputs at scales 3.0
// and 3.9 (TestARDFriedman, issue 17's point 2, failed).
//
// Measured with vrvm fit and predict (inputs and target standardised, the
// command's default) on the sets of the table above and a target linear
// in 10 of 100 inputs (make_regression, noise 5, 420 training rows);
// test RMSE, ±2σ coverage, CPU; before (C1) and (C2) → after:
//
//	set                 -width auto                             -kernel ard
//	50 inputs, 420      stopped after 400 s (419 functions) →   stopped after 400 s →
//	                    2.929, 0.91, 15 s (width 11.4)          2.007, 0.92, 21 s
//	20 inputs, 420      2.480, 0.03, 189 s (γ 403) →            1.103, 0.92, 18 s (the same fit)
//	                    2.346, 0.57, 16 s (width 5.2)
//	100 inputs, 350     3.331, 0.03, 311 s (γ 327) →            stopped after 540 s →
//	                    2.828, 0.84, 10 s                       1.962, 0.95, 13 s
//	50 inputs, 700      2.762, 0.07, 517 s (669 functions) →    stopped after 600 s →
//	                    2.577, 0.94, 6 s                        1.640, 0.95, 12 s
//	linear, 100 inputs  7.687, 0.04, 414 s (420 functions) →    stopped after 470 s →
//	                    5.859, 0.94, 53 s (width 120;           168.2, 0.93, 13 s (the
//	                    168.2, 0.93 with (C1) alone)            constant model)
//
// (scikit-learn on the same splits, standardised: GPR with RBF and white
// noise 2.264, 2.845, 2.834, 2.599; GPR with ARD length scales 0.989 and
// 1.045 on the 20- and 50-input sets; ARDRegression above.) A single
// learned width keeps its weakness with many inputs: where γ stays just
// below N/2 the noise is partly held by spikes (coverage 0.57 on the
// 20-input set, 0.87 with Augment); the default width (W5) is the better
// single width there. ARD from the median distance on the linear target
// ends at the constant model, as the single width did: with every length
// scale at the evidence's width a refit there crawled (235–418 functions,
// still running after 570 s). On the diabetes split -kernel ard learned 55
// functions with RMSE 58.31 and coverage 0.910 before the second starts
// were extended to regression (S6, S10; bisected to that commit); since
// then 286 functions, 84.58 and 0.030; with (C1) 122 functions, γ 97.5,
// 62.85 and 0.729, whose bound (−5516.07) is above the 55-function fit's
// (−5519.43): below N/2 too the bound prefers the more crowded fit.
// internal/learneval with LearnKernel (Gaussian{}), before → after:
// diabetes 60.24, 0.902 → 60.16, 0.902; the 25 sinc sets 0.0434 →
// 0.0410; Friedman #1 1.104, 0.927 → 1.146, 0.937; at N = 300 1.707,
// 0.824 → 1.723, 0.795. The default (W4)–(W5), the classifiers, the
// paper's 47 problems (internal/solvercmp: every bound, active set and
// iteration count the same) and the other ARD figures are unchanged.
//
// For classification the dense model's evidence needs a variational fit
// of its own at each width (the Jaakkola–Jordan bound with one α), and
// on the binary splits it rises toward the nearly linear widths (breast
// −56.5 at width 10, −53.1 at 30; digits 3 vs 8 −53.2 at 10, −49.9 at 30),
// where the sparse classifier predicts worse on breast (7 errors, Brier
// 0.0409 at width 30, against 6 and 0.0320 at the bound's width 10.9);
// Classifier and MultiClassifier therefore keep learning by the bound.
//
// With rare positives the bound prefers memorising a binary classifier's
// labels. A kernel function that is 1 at its own row and 0 at every
// other gives that row's label a weight of its own; with one αₘ per
// function that weight is all but free, and a spike lifts a positive's
// probability from the base rate p toward ½ or more, worth up to about
// ln(1/2p) nats each (a spike on a negative gains nothing). With 2 %
// positives the bound then rises all the way to the limit K = I: vrvm
// fit on 700 rows of five inputs (14 positives) learned width 0.0015,
// one relevance vector per positive and training error 0, and predicted
// the base rate everywhere (test Brier score 0.0199, the base rate's
// 0.0196; bound −8720.6 there, −8741.9 at width 10, which scores 0.0089).
// On the rows of either class c the effective number of parameters is
// the sum of the rows' leverages hₙ = Bₙφₙᵀ Σ φₙ (whose sum over every
// row is γ), and a fit with
//
//	γ_c = Σ_{n: tₙ = c} Bₙφₙᵀ Σ φₙ > ½ N_c                                  (C3)
//
// spends more than one parameter on every two labels of that class: it
// memorises them rather than following how the class varies with the
// inputs ((C1) applied to each class; a fit with γ > N/2 meets (C3) in
// one class at least). In kernel learning of a Classifier (the default
// solver, with pruning) such a fit is crowded and is rejected as (C1)'s
// are (a crowded first fit restarts from twice the scales), and of a
// cold and a warm refit one that is not crowded is kept whatever the
// bounds. (C3) alone stops short of the limit but not of memorising:
// where the bound rises all the way to K = I, learning ends where (C3)
// binds, with about half the positives' labels memorised (on the set
// above width 0.86, Brier 0.0126; on one 500-row set below 0.047, the
// base rate's 0.033). So, once learning has met a crowded fit, it fits
// the limit itself, every scale divided by e¹² (a cheap fit of spikes),
// and unless the bound prefers the best fit it kept to that,
//
//	V(K = I) ≥ V(best fit kept)  ⇒  keep the start of learning            (C4)
//
// the bound cannot tell the widths apart, and learning keeps the fit at
// its start (the median distance, or the given scales; LearnTrace ends
// with V(K = I)). Where the bound has a maximum above the limit, as it
// does for balanced classes, learning keeps it. Measured with vrvm fit
// and predict, test Brier score of the moderated probability, before →
// after, against scikit-learn's LogisticRegression (LR) on the same
// standardised rows; make_classification with 8 inputs (4 informative,
// 2 redundant, flip_y 0.01), 70/30 stratified splits, 5 seeds, means:
//
//	set                                     before    after     LR       base rate
//	imb2 (700 rows, 14 positives)           0.0199    0.0113    0.0086   0.0196
//	imb2, imb22–imb24 (mean)                0.0182    0.0179    0.0170   0.0267
//	weights 0.97/0.03, 1,000 rows           0.0312    0.0259    0.0259   0.0322
//	weights 0.97/0.03, 500 rows             0.0333    0.0255    0.0268   0.0334
//	weights 0.9/0.1, 1,000 rows             0.0563    0.0460    0.0600   0.0911
//	weights 0.9/0.1, 500 rows               0.0520    0.0520    0.0528   0.0921
//	balanced, 500 and 1,000 rows (3 seeds)  0.0797, 0.0623 unchanged  0.151, 0.106
//
// (13 of the 30 sets change: on 9, every collapsed one among them
// (widths 0.0015–0.11 before), learning ends at its start, widths
// 2.6–3.8; on 4 the learned width moves by a factor 1.2–1.7; one positive
// in 50 rows: width 0.0009 → 1.67). Breast, digits 3 vs 8 and
// Ripley (internal/learneval) meet no crowded fit and are unchanged. The
// rules do not make the bound pick the width that predicts best: where
// its maximum lies above the limit at a narrow width, learning keeps it
// (imb23: width 0.78 → 1.29, test Brier 0.0099 → 0.0174 on its 6 test
// positives, where width 3 gives 0.0128). Of 12 sets of 400 rows with
// five standard normal inputs and P(t = 1) = σ(−5 + 2x₀ + x₁) (about 5 %
// positives; test sets of 2,000 rows), 4 collapsed to widths 0.0016–0.09
// with Brier 0.0332–0.0372, above their base rates' 0.0325–0.0363; with
// (C3)–(C4) widths 2.8–3.1, 2–4 relevance vectors, 0.0284–0.0300
// (TestLearnClassCrowded: seed 11, 0.0372 → 0.0300, base rate 0.0362).
//
// MultiClassifier learns by the same steps (learnWith) on its own
// full-model bound. At fixed Q, with class k's active functions Aₖ,
// ȳₙₖ = μₖᵀφₙ and vₙₖ = φₙᵀΣₖφₙ over Aₖ, the terms that depend on Φ are
//
//	F(θ) = Σₙ ℓₙ(ȳₙ) − ½c Σₙₖ vₙₖ + Σₖ Σ_{j ∉ Aₖ} excludedTerm(cφⱼᵀφⱼ)    (K9)
//
// with, for the softmax, ℓₙ the first line of (M9) (ψ held) and c = c₀,
// and for the probit ℓₙ = ln Zₙ + ½‖ỹₙ − ψₙ‖² − ½‖ỹₙ − ȳₙ‖² of (P6)
// (Q(Y) held), c = 1 and one excluded term with K outputs per function
// outside the shared set (P13). Böhning's bound is quadratic in W, so
// the gradient is a sum over classes of the binary model's (K5):
//
//	∂F/∂Φ_Aₖ ∋ rₖμₖᵀ − cΦ_AₖΣₖ,   ∂F/∂φⱼ ∋ −cφⱼ/(αⱼ + sⱼ) (j ∉ Aₖ)       (K10)
//	softmax: rₙₖ = tₙₖ − gₖ(ψₙ) − ½((ȳₙ − ψₙ)ₖ − (1/K)Σⱼ(ȳₙ − ψₙ)ⱼ)
//	probit:  rₙₖ = ỹₙₖ − ȳₙₖ
//
// (for the probit's excluded term, with K outputs, K c φⱼ/(αⱼ + sⱼ)),
// chained to u by (K6). The tests check (K10) against central
// differences of (K9), and (K9) against the solvers' own bound with the
// design at other widths. MultiClassifier's solvers take no warm start,
// so every refit starts from an empty model.
//
// The bound does not always pick the width that predicts best. On the
// diabetes split of the shared real-world sets (309 rows, 10
// standardised inputs; a bias and one Gaussian column per row, default
// solver) the full-model bound is −5522.6 at width 3.65 (learning ends
// at 3.4–3.7), −5525.8 at 5, −5533.7 at 7 and −5535.1 at 10, while the
// test RMS error is 59.6, 58.1, 56.0 and 55.2; at width 1 the bound is higher still,
// −5427, where the noise estimate collapses (coverage of ±2σ 0). Linear
// basis terms do not change the order: with one extra column per input
// the bound at 3.65 is −5644.6 (RMS error 59.7), and with the kernel
// K + c·xᵀx' it prefers c = 0.01 at width 2 (−5511.9, RMS error 59.8) to
// c = 1 (−5535 at every width, RMS error 55.5). ARD length scales reach
// 58.2–58.9 there, depending on the number of refits.
//
// On digits 3 vs 8 (249 rows, 64 inputs) no width of the grid 3, 4, 5,
// 6, 8, 10, 13, 16, 20, 30, 50 reaches a test Brier score below 0.0084
// (width 10, one error; the learned width, about 13, gives 0.0106, and
// the target of issue 17 derived from scikit-learn's best is 0.0083).
// Its one error at the learned width is a 3 with activation 22.6 (sd
// 0.59), which alone adds 0.0093; augmenting at the test point (Augment)
// raises the score to 0.0115 (breast 0.0316, Ripley 0.0707; 0.0114 since
// the falling bound ends the fit, (S9)). The fixed
// width MedianDistance, not learned, meets the diabetes target (58.74,
// coverage 0.902) but not the others (breast 4.68 %, 0.0388; digits 3 vs
// 8 2.78 %, 0.0198; Ripley 9.10 %, 0.0656).
//
// The prior's rate b tilts V toward narrow widths where the targets are
// precise and N is large. An excluded function's term (excludedTerm) has,
// for small a and b, its maximiser at α ≈ √(s/2b) and equals a constant
// minus about √(2bs), with s = φⱼᵀBφⱼ; a wider kernel raises every sⱼ, so
// the N excluded terms together favour narrow kernels by an amount that
// grows like N·√(bN), whatever the data say. On sinc (noise 0.1, seed 1,
// N = 2,000, default solver) the bound at the paper's b = 1e-6 prefers
// width 0.3 to width 3 by 276 nats (−23306.0 against −23582.3, RMS error
// against sin(x)/x 0.0205 against 0.0062), although the noise estimates
// agree (0.0997, 0.1006); at b = 1e-9 and 1e-12 the order turns and width
// 3 has the highest bound of the grid 0.3–4 (−23108.3 and −23092.3),
// with 5 instead of 11 relevance vectors and the same error. The learned
// default at N = 4,000 (seeds 1 and 3) ends at width 0.55 with b = 1e-6
// (seed 1: RMS error 0.0117, 36 vectors) and at 2.09 and 1.30 with
// b = 1e-12 (0.0083, 0.0089; width 3 gives 0.0055, 0.0047). The default
// prior stays the paper's, which Tables 1–4 use; for diabetes (targets in
// their own units, noise variance about 3,000) b·s is tiny and this is
// not what holds its width at 3.65.
//
// A Gamma hyperprior Γ(θ | a_θ, b_θ) on
// each θ (KernelLearning.ScaleShape, ScaleRate) adds, in u,
//
//	ln p(u) = a_θ u − b_θ eᵘ + const                                   (K8)
//
// to V. A hierarchical prior on ARD length scales
// (KernelLearning.ScaleSpread = s) ties them to a common scale e^ū that
// is learned with them:
//
//	ln p(u) = −Σₖ (uₖ − ū)²/(2s²) + const,   ū = (1/d) Σₖ uₖ            (K11)
//
// (ū maximises the prior, so its derivative in ū is zero there and
// ∂ ln p/∂uₖ = −(uₖ − ū)/s²). Each ℓₖ stays within about a factor e^s of
// the common scale unless the bound asks strongly for more; switching an
// input off (ℓₖ moved by 12 in u) costs about 72/s² nats and is no
// longer kept. Measured with internal/learneval and the command line's
// Boston example (test RMSE and ±2σ coverage, or error and Brier score;
// the default is the learned width):
//
//	set        default          ARD              ARD, s = 1       ARD, s = 0.5
//	diabetes   59.68, 0.902     58.31, 0.910     58.79, 0.902     58.36, 0.902
//	breast     3.51%, 0.0320    5.26%, 0.0409    4.68%, 0.0442    5.26%, 0.0454
//	digits38   0.93%, 0.0106    2.78%, 0.0237    1.85%, 0.0117    2.78%, 0.0160
//	friedman   1.065, 0.950     0.401, 0.997     0.441, 0.997     0.441, 0.998
//	ripley     10.0%, 0.0699    9.70%, 0.0702    9.70%, 0.0702    9.80%, 0.0716
//	Boston     6.93, 28 of 40   6.98, 15 of 40   6.23, 26 of 40   6.61, 24 of 40
//
// The prior removes ARD's losses on Boston and digits 3 vs 8 only in
// part, and costs diabetes most of its gain; on the two binary splits the
// bound prefers every ARD variant to the single width (breast −4975.1
// free, −4978.3 with s = 1, against −4983.3) while it predicts worse, so
// it stays an option, off by default. Learning starts from the given
// parameters, or where they are zero from the inputs' MedianDistance
// (for a regression's single width, from (W4): (C2)). One gradient costs O(N²d) kernel
// derivatives and N² kernel values in memory, beside the fits.
//
// Two limits of learning by the bound, measured and not resolved (vrvm
// fit and predict with the defaults; scikit-learn's make_classification,
// 70/30 stratified splits). The bound as a function of the width has
// local maxima of its own, one per set of relevance vectors, and the
// gradient steps find the nearest: on 200 rows of 50 inputs learning
// ends at width 8.80 (bound −2557.67; test error 20.0 %, log loss
// 0.435) while a fit at 15 reaches −2553.33 (14.0 %, 0.359). Trying the
// opposite side of the start after a rejected first step found it
// (−2552.71, 14.7 %, 0.349) but ended 0.5–3 nats lower on each of the 3
// other sets it changed, of about 40 binary and multi-class sets, and
// was not kept. And with flipped labels the bound prefers fits that memorise
// some of them: 400 rows of 15 informative inputs, 5 % flipped
// (flip_y 0.05): width 2.94, 22 relevance vectors, training error 0.7 %,
// bound −3549.75, test error 20.0 %, log loss 0.644, where a cold fit at
// the same width has −3559.25, 1.8 %, 16.7 % and 0.417, and the SVC
// (grid-searched) 12.5 % and 0.321; 500 rows of 20 inputs (3
// informative): 26.0 %, 0.563 against the SVC's 18.0 %, 0.479.
//
// # Variance away from the data
//
// With localised kernels the predictive variance φ(x)ᵀΣφ(x) + 1/⟨τ⟩
// falls to the noise far from the relevance vectors, where the model
// knows least (Rasmussen & Quiñonero-Candela 2005). With Augment each
// prediction at x* adds the function φ*(x) = K(x, x*) with weight
// w* ~ N(0, 1/α*) to the model and takes the optimal Q over (w, w*) given
// the other factors, as the update (23)–(24) or (54)–(55) would with the
// extra column k = (K(xₙ, x*))ₙ at the training inputs. Eliminating w*
// by the Schur complement of the precision, with g = Φ_AᵀBk,
//
//	q = α* + kᵀBk − gᵀΣg                                               (A1)
//	⟨w*⟩ = kᵀ(y − BΦ_Aμ)/q                                              (A2)
//	mean(x*) = μᵀφ(x*) + e⟨w*⟩,   e = K(x*, x*) − φ(x*)ᵀΣg             (A3)
//	var(x*) = φ(x*)ᵀΣφ(x*) + e²/q                                       (A4)
//
// Far from the data k → 0, so var → φ(x*)ᵀΣφ(x*) + K(x*, x*)/α*. The
// prior precision of the augmenting weight is
//
//	1/α* = mean of 1/⟨αₘ⟩ over the active kernel functions             (A5)
//
// (the average prior variance of a relevant weight). A prediction costs
// O(N(d + M) + M²) more per test point (N training rows, d inputs, M
// active functions), and the model keeps the N training inputs, the
// precisions Bₙ and the residuals. Where the active functions nearly
// explain k, kᵀBk − gᵀΣg in (A1) is the difference of two nearly equal
// numbers (on Friedman #1 with 3,000 rows and the default width, kᵀBk
// about 7,500 and the difference 7.2·10⁻⁴, computed as 9.9·10⁻⁴), so it
// is computed as the minimum it is, as (S14):
//
//	kᵀBk − gᵀΣg = Σₙ Bₙ(kₙ − φₙᵀu)² + Σₐ ⟨αₐ⟩uₐ²,  u = Σg            (A8)
//
// a sum of non-negative terms whose error in u is of second order. The
// predictions go by blocks of test rows, with the kernel block
// K(x*, training inputs) and the products by BLAS, over the workers of
// parallelBlocks: 50,000 predictions from a fit on 8,000 rows in 5
// inputs take 25 s of CPU (12.6 s without (A8), 16.4 s element by element
// before; the means moved by up to 0.4 % with (A8)).
//
// Regressor and Classifier augment by default (NoAugment turns it off;
// FitDesign, MultiClassifier and the RVMs never augment; the paper's
// tables use the plain model):
//
//	predictions are (A3)–(A4) at every test point                       (A6)
//
// chosen by measurement, vrvm fit and predict with the defaults, before
// (plain) → after (augmented); regression test RMSE and ±2σ coverage of
// the targets (internal/learneval: coverage of the noise-free function
// for Friedman #1), classification test error, Brier score or log loss:
//
//	set                                       plain               augmented
//	diabetes (shared split)                   58.47, 0.917        58.63, 0.917
//	sinc, 25 sets of 100                      0.0379              0.0346
//	Friedman #1, 1,000 rows                   0.880, 0.981        0.852, 0.989
//	x₀ + 2 sin x₁ + 0.5x₂ + 0.2ε, 300 rows:
//	  30 inputs                               0.462, 0.917        0.457, 0.930
//	  100 inputs                              0.715, 0.667        0.698, 0.913
//	  200 inputs                              0.986, 0.663        0.946, 0.853
//	15 binary inputs, 400 rows                0.389, 0.785        0.383, 0.880
//	constant, copied, combined columns        0.255, 0.830        0.238, 0.850
//	lognormal and Cauchy inputs, 400 rows     1.900, 0.935        1.953, 0.943
//	breast (shared split)                     3.51%, 0.0320       3.51%, 0.0316
//	digits 3 vs 8 (shared split)              0.93%, 0.0106       0.93%, 0.0115
//	Ripley                                    10.00%, 0.0699      10.10%, 0.0707
//	label of x₀ + x₁ + 0.3ε, 200 rows:
//	  20 inputs, log loss                     12.0%, 0.385        11.3%, 0.282
//	  50 inputs                               22.7%, 0.836        20.0%, 0.435
//	  300 inputs                              41.3%, 1.591        36.3%, 0.654
//	15 binary inputs, 400 rows, log loss      15.3%, 0.537        14.8%, 0.398
//	separable, 3 inputs, log loss             0%, 0.0034          0%, 0.0056
//	near-separable, 4 inputs, log loss        3.0%, 0.085         3.3%, 0.086
//
// With many inputs every test point is far from the relevance vectors
// in units of the width, the plain variance is the noise's (a noise
// estimate that the sparse fit holds low with many functions), and its
// intervals cover two thirds of the targets, or a misclassified row gets
// a probability of 10⁻¹²; the augmented model's variance rises there,
// and the mean moves by (A3). On low-dimensional, well-covered inputs it
// changes little (a few per cent of the Brier score or log loss, either
// way).
//
// The augmentation suits a kernel whose diagonal K(x, x) is the same at
// every input, as Gaussian's and ARDGaussian's (1): the augmenting
// function K(·, x*) is then at most K(x*, x*) at a training input
// (Cauchy–Schwarz) and it peaks at x*. A kernel whose diagonal varies
// (Polynomial, Linear: it grows with ‖x‖) has no variance to restore — its
// φ(x)ᵀΣφ(x) grows away from the data by itself — and at a test point
// of larger norm than the training inputs K(x*, x*) exceeds every kₙ by
// far, so that e⟨w*⟩ of (A3) multiplies a weight fitted to the training
// residuals by that ratio. Such kernels are not augmented:
//
//	augment only if K(xₙ, xₙ) is the same at every training input     (A9)
//	(to a relative 10⁻⁹; Regressor, Classifier and MultiClassifier)
//
// (TestAugmentNonStationary; a model file written before (A9) with such
// a kernel and the augmentation's state loads without it,
// TestAugmentNonStationaryLoad). Measured with vrvm fit and predict, augmented
// (before) → plain (after), test RMSE or test error and log loss; the
// "shifted" sets have x₀, x₁, x₂ ~ N(0, 1) and an input x₃ that is 0 in
// the 150 training rows and N(0, 9) in the 150 test rows:
//
//	set                                       polynomial           linear
//	sin x₀ + 0.5x₁ + 0.1ε, shifted            130.3 → 0.172        0.544 → 0.338
//	x₀ + 0.5x₁ + 0.1ε, 20 rows, 100 inputs    259.6 → 1.263        3.687 → 1.263
//	x₀ + 0.1ε, 3 rows, 2 inputs               9.27 → 1.094         0.214 → 0.214
//	sin x₀ + 0.1ε, 100 rows, 1 input          0.400 → 0.399        0.732 → 0.739
//	2 classes, shifted                        10.0%, 0.370 →       11.3%, 0.241 →
//	                                          12.0%, 0.277         10.0%, 0.186
//	3 classes, shifted                        24.7%, 0.629 →       20.7%, 0.453 →
//	                                          22.0%, 0.538         17.3%, 0.385
//	5 classes, 3 inputs, 200 rows             16.5%, 0.423 →       13.0%, 0.373 →
//	                                          17.0%, 0.431         13.5%, 0.377
//	sign of sin x₀ + 0.3ε, 1 input            6.0%, 0.156 →        (not run)
//	                                          6.0%, 0.158
//
// (seeded numpy data, the CLI's defaults otherwise; the polynomial fits
// of the second and third rows kept the bias alone, whose α* of (A5) is
// the bias's, the first kept 10 relevance vectors).
//
// MultiClassifier's softmax model (Likelihood Softmax, under Böhning's
// bound) augments each class's activation the same way, by default
// (NoAugment turns it off; SoftmaxAdaptive and Probit are not augmented).
// Its Q(wₖ) is (M4) with the curvature c₀ = ½(1 − 1/K) at every row and
// the targets zₖ of (M5), whose residual at the means of (M18) (ψ = ȳ) is
// zₖ − c₀Φμₖ = tₖ − pₖ, pₙ = softmax(Wᵀφₙ); so (A1)–(A4) with B = c₀ and
// y = zₖ give, for each class k, with g = c₀Φᵀk,
//
//	qₖ = α*ₖ + c₀kᵀk − gᵀΣₖg,   eₖ = K(x*, x*) − φ*ᵀΣₖg
//	ȳₖ(x*) += eₖ kᵀ(tₖ − pₖ)/qₖ,   vₖ(x*) += eₖ²/qₖ                    (A7)
//
// with α*ₖ of (A5) over class k's active kernel functions (its bias alone
// if it has none, every class's if it has no active weight), and the
// moderated softmax (M17) of the augmented activations; the decision is
// the largest augmented mean. TestMultiAugmentExact checks (A7) against
// the Gaussian over (wₖ, w*ₖ) solved directly. Measured (vrvm fit and
// predict with the defaults; test errors and log loss, plain → augmented;
// scikit-learn's make_classification and make_blobs, 70/30 splits
// stratified by class, and load_digits):
//
//	set                                        plain                 augmented
//	iris (shared split)                        1 of 45, 0.0380       0 of 45, 0.0396
//	wine (shared split)                        1 of 54, 0.0313       0 of 54, 0.0279
//	digits (shared split)                      32 of 540, 0.2323     30 of 540, 0.2376
//	three-class Ripley, 250 rows               11.40%, 0.319         11.10%, 0.309
//	3 classes, 10 inputs (5 informative), 300  27.8%, 0.812          22.2%, 0.653
//	5 classes, 20 inputs (8), 800 rows         38.3%, 1.274          35.4%, 1.119
//	4 classes, 50 inputs (6), 600 rows         56.7%, 1.767          53.3%, 1.213
//	6 blobs in 2 dimensions (std 2), 600 rows  17.8%, 0.427          18.9%, 0.433
//	the 300 rows above, training rows ×3       28.9%, 1.814          28.9%, 1.406
//	15 classes, 10 inputs (8), 900 rows        54.4%, 2.083          53.7%, 1.881
//	digits 0–4 (5 classes, 64 inputs), 903     1.48%, 0.093          1.48%, 0.086
//	3 classes, 8 inputs (5), 3,000 training    13.45%, 0.389         13.22%, 0.380
//
// The fits are the same (the bound, the relevance vectors); the
// predictions cost O(N(d + M) + KM²) more per row.
//
// # Type-II maximum likelihood RVM
//
// RVMRegressor and RVMClassifier maximise the evidence ln p(t | α, β) of
// Tipping (2001), with the two strategies of Solver. PaperSchedule
// iterates his updates (eqs. 45–47) on all N + 1 functions (rvm.go:
// reestimate, over the Gaussian and logistic rvmModel). Sequential, the default, is the sequential
// algorithm of Tipping & Faul (2003) (rvmseq.go): as a function of one αₘ
// the evidence (for classification, that of the Gaussian of Laplace's
// approximation, rvmLogit) is
//
//	ℓ(αₘ) = ½ [ln αₘ − ln(αₘ + sₘ) + qₘ²/(αₘ + sₘ)]                 (R1)
//
// with the sparsity and quality factors, C₋ₘ the marginal covariance
// β⁻¹I + Σⱼ≠ₘ αⱼ⁻¹φⱼφⱼᵀ without function m,
//
//	sₘ = φₘᵀ C₋ₘ⁻¹ φₘ,   qₘ = φₘᵀ C₋ₘ⁻¹ t,                               (R2)
//
// maximal at
//
//	αₘ = sₘ² / (qₘ² − sₘ) if qₘ² > sₘ,  else αₘ = ∞ (not in the model);  (R3)
//
// each iteration takes the addition, re-estimation (R3) or deletion with
// the largest gain in the evidence (for δ = 1/α̃ₘ − 1/αₘ, and
// Sₘ = αₘsₘ/(αₘ + sₘ), Qₘ = αₘqₘ/(αₘ + sₘ))
//
//	add ½[qₘ²/sₘ − 1 − ln(qₘ²/sₘ)],  re-estimate ½[δQₘ²/(δSₘ + 1) − ln(1 + δSₘ)],
//	delete −½[qₘ²/(sₘ + αₘ) − ln(1 + sₘ/αₘ)],                            (R4)
//
// then re-estimates β (eq. 47). When the best move is a re-estimate, the
// active αₘ and β are instead converged jointly, with the active set
// fixed, by Newton's method on ln p(t | α, β) in ln αₘ and ln β
// (rvmState.polish, rvmNewton; Levenberg–Marquardt where the Hessian is
// indefinite): β couples every αₘ, and single re-estimates need many
// sweeps over the active set (Friedman #1, N = 1,000: 6,772 iterations
// against 463). The factors come from
//
//	Sₘ = βφₘᵀφₘ − β²φₘᵀΦΣΦᵀφₘ,  Qₘ = βφₘᵀ(t − Φμ);
//	active m: sₘ = 1/Σₘₘ − αₘ,  qₘ = μₘ/Σₘₘ,                              (R5)
//
// computed for every candidate from the factorisation Φ = U Bᵀ of the
// design (factor.go), without an N × N matrix.
//
// For classification the gains (R4) are those of the Gaussian at the
// current mode; after the move Laplace's mode moves, and the evidence at
// the new mode can fall. The sequential classifier then cycled: on 350
// rows of 20 inputs with 5 % of the labels flipped it alternated one
// function in and out (Laplace evidence −112.508, −112.555, …) until the
// iteration limit, 121 s of CPU. So the classifier's fit ends once its
// evidence has not passed its best by 10⁻⁹(1 + |best|) for 200
// iterations, with the state (active set, αₘ, mode) of the best evidence
// (a fit that converges keeps its fixed point of (R3), even below an
// evidence it passed):
//
//	stop after 200 iterations without a new best evidence; keep the best (R8)
//
// (rvmSnapshot, rvmStall; TestRVMClassifierStall: 4 seeded problems of
// that shape, each at the iteration limit before, converge in 280–527
// iterations at their best evidence). Measured with vrvm fit -model rvm
// and predict, default width, before → after (test error, Brier score,
// log evidence, CPU of the fit): make_classification 600 rows, 20
// inputs (5 informative, 5 redundant), 70/30: 8.3 %, 0.0582, −79.40,
// 135 s at the limit → 8.3 %, 0.0579, −79.03, 7.4 s; 500 rows, 20 inputs
// (3 informative, 5 % flipped): 23.3 %, 0.1894, −112.51, 121 s at the
// limit → 23.3 %, 0.1893, −112.40, 9.9 s; 400 rows, 15 inputs: 18.3 %,
// 0.1430, −48.73 → 18.3 %, 0.1437, −48.67; 300 rows, 30 inputs: 22.2 %,
// 0.1666, −56.33 → 22.2 %, 0.1653, −55.37 (where the evidence had
// passed its best, fallen and not risen again for 200 iterations);
// breast, digits 3 vs 8, Ripley and six more sets of 2–50 inputs: the
// same fits. Regression, whose evidence is exact, is unchanged.
//
// The factorisation Φ = U Bᵀ has the kernel matrix's numerical rank r,
// which for a Gaussian kernel in several dimensions is N: the
// classifier's (R5) then forms UᵀWU, O(N r²) = O(N³), at every
// iteration, and the factorisation itself costs O(N³). On 6,000 rows of
// six inputs (5,000 centres) the first iteration took 124 s of wall time
// (166 s of CPU on 2 shared cores), and on 12,000 rows none had ended
// after 18 minutes (8 GB, every row a centre then). Above rvmExplicitRows = 1,000 rows the sequential
// algorithm therefore takes the design as the variational Sequential
// solver does (newSeqDesign): the factorisation where r is small
// (Ripley, sinc: the same fits as before), otherwise the explicit
// N × P design, with which (R5) costs O(P N M) for M active functions:
//
//	N > 1,000 and r > min(512, max(64, N/8))  ⇒  U = I, B = Φᵀ        (R9)
//
// (the 6,000 rows: 355 iterations in 90 s of wall time;
// TestRVMExplicitDesign: the same relevance vectors, log evidence to
// 10⁻⁷ and latent means to 10⁻⁵ with either design on a full-rank
// problem of 200 rows). The
// classifier's evidence then still rises by hundredths of a nat per
// iteration after hundreds of iterations: at that size the type-II RVM
// remains far slower than the variational Classifier (12,000 rows: 56 s).
//
// Both algorithms hold β ≤ 10⁶/var(t), a noise variance at least a
// millionth of the targets' (rvmBetaMaxFactor, SparseBayes's
// BetaMaxFactor): where the basis can nearly interpolate the targets the
// evidence keeps rising as β → ∞, and uncapped the sequential algorithm
// swung for minutes without converging (95 rows, Gaussian width 0.05).
// A fit whose effective number of parameters γ = Σₘ(1 − αₘΣₘₘ)
// (EffectiveParameters) is close to N has such a collapsed noise
// estimate, whichever estimator made it.
//
// A nil Kernel means a Gaussian whose width is chosen from the data, as
// for the variational estimators (it was Gaussian{Width: 1}, whose kernel
// matrix is nearly the identity on standardised inputs of many columns):
//
//	RVMRegressor: Regressor's default width, that of the dense model's
//	evidence (W4), doubled while the fit's γ exceeds N/2 (W5)            (R6)
//	RVMClassifier: the width Classifier's default learns by its
//	full-model bound, on at most 500 rows spread through the data        (R7)
//
// (W4) is itself a type-II maximum likelihood criterion, the evidence of
// the RVM with one α shared by every kernel function, and costs one
// eigendecomposition of at most 500 rows per width; as the variational
// sequential solver, the RVM's stops a fit as soon as its γ passes N/2
// (on Friedman #1 with 45 irrelevant inputs, 120 rows, the fit at the
// width of (W4) kept 118 functions, γ 119.0, noise sd 0.0044, test ±2σ
// coverage 0.00; doubled once, 22, γ 19.6, 2.07 and 0.81:
// TestRVMRegressorDefaultWidthWidened). A classifier's evidence has no
// closed form; the variational bound approximates the same evidence,
// and learning by it costs a few variational fits (0.5 s CPU on breast,
// 2.6 s on digits 3 vs 8). At the width of (R7) the RVM's own (Laplace)
// log evidence is the higher on each classification set below: breast −31.1, digits 3
// vs 8 −12.0, Ripley −69.2, the 20-input set −83.3, against −72.8,
// −172.6, −75.6 and −291.1 at width 1 and −32.7, −15.0, −74.8 and −99.7
// at the width of (W4) for the labels as regression targets (4.86, 7.52,
// 0.945, 5.45; its test errors 4.09 %, 2.78 %, 10.0 %, 5.56 %, breast at
// the iteration limit after 88 s). Measured with vrvm fit -model rvm and
// predict (inputs standardised; test RMSE and ±2σ coverage, or error and
// Brier score of the moderated probability; CPU of the fit), width 1 →
// (R6), (R7):
//
//	diabetes, 309 rows × 10    81.99, 0.008, 2.8 s, 307 vectors → 56.74, 0.932, 0.5 s, 8 (width 5.37)
//	Friedman #1, 700 × 10      5.110, 0.007, 33 s, 696 vectors → 1.638, 0.937, 2.1 s, 47 (width 5.40)
//	25 sinc sets, 100 × 1      RMS error 0.1189 → 0.0398, 4.1 → 5.6 vectors (width 0.49)
//	breast, 398 × 30           14.62 %, 0.1286, 110 s (iteration limit) → 3.51 %, 0.0313, 1.8 s (width 10.9)
//	digits 3 vs 8, 249 × 64    4.63 %, 0.2500, 55 s (iteration limit) → 1.85 %, 0.0147, 3.7 s (width 12.8)
//	Ripley, 250 × 2            9.80 %, 0.0703, 0.3 s → 11.20 %, 0.0788, 1.2 s (width 0.57)
//	20 inputs, 420 rows        12.22 %, 0.2500, 608 s → 8.89 %, 0.0528, 151 s (both at the
//	                           iteration limit; width 2.71)
//
// (Friedman #1: scikit-learn's make_friedman1, noise 1, 1,000 rows split
// 70/30; the 20-input set make_classification with 5 informative and 5
// redundant inputs, 600 rows split 70/30.) On Ripley the evidence's
// width predicts worse than width 1, which is close to the paper's (0.5
// on the raw inputs: 9.60 %). The RVM classifier reached its iteration
// limit on the 20-input set, whose training rows it separates (training
// error 0.5 %), at width 1 too, until (R8).
//
//	(R1)–(R4)               bestMove; (R5) rvmState.factors
//	(R6)                    fitted.prepareRVM, fitted.defaultWidth,
//	                        RVMRegressor.FitContext, rvmState.effective
//	(R7)                    fitted.rvmClassifierWidth
//	(R8)                    rvmState.run, rvmSnapshot, rvmStall
//	(R9)                    newRVMState, rvmState.explicitFactors
//	Tipping (2001) 45–47    rvmGauss.posterior, reestimateAlpha,
//	                        rvmGauss.reestimateNoise, rvmState.polish
//
// # Multi-class classification
//
// MultiClassifier extends the model to K classes (the paper treats two).
// Labels are strings; class k's row of the one-hot tₙ is 1. Each class
// has a weight vector over the shared basis, W = [w₁ … w_K] (M × K), and
//
//	P(tₙ = k | W) = exp(yₙₖ)/Σⱼ exp(yₙⱼ),  yₙ = Wᵀφₙ                   (M1)
//	p(wₘₖ | αₘₖ) = N(0, αₘₖ⁻¹),  p(αₘₖ) = Γ(a, b)                       (M2)
//
// with one precision per weight: a function is relevant for the classes
// that need it (RelevanceVectors is the union over classes). The softmax
// is bounded below by Böhning's inequality (Böhning 1992): the Hessian of
// lse(y) = ln Σₖ exp(yₖ) is at most A = ½(I − 11ᵀ/K), so, with g = softmax,
//
//	ln P(tₙ | yₙ) ≥ tₙᵀyₙ − lse(ψₙ) − gₙᵀ(yₙ − ψₙ) − ½(yₙ − ψₙ)ᵀA(yₙ − ψₙ)  (M3)
//
// for any ψₙ, with equality at yₙ = ψₙ (BohningBound). The bound is
// quadratic in W, so every factor has a closed form. The posterior is
// factorised over classes, Q(W) = ∏ₖ N(wₖ | μₖ, Σₖ) (with per-class
// precisions the joint MK × MK posterior would not split), so that only
// A's diagonal c₀ = ½(1 − 1/K) acts on a class's covariance and its
// off-diagonal −1/(2K) couples the classes' means:
//
//	Q(wₖ): Σₖ = (diag⟨αₖ⟩ + c₀ΦᵀΦ)⁻¹,  μₖ = ΣₖΦᵀzₖ,                      (M4)
//	       zₙₖ = tₙₖ − gₖ(ψₙ) + c₀ψₙₖ + (1/2K) Σ_{j≠k}(ȳₙⱼ − ψₙⱼ)         (M5)
//	Q_α:   ã = a + ½,  b̃ₘₖ = b + ½(μₘₖ² + Σₖ,ₘₘ)                          (M6)
//	ȳₙₖ = μₖᵀφₙ,  vₙₖ = φₙᵀΣₖφₙ                                          (M7)
//	ψ:     ψₙ = ȳₙ                                                      (M8)
//
// Each class is a binary-like problem with the constant curvature c₀ (the
// Jaakkola–Jordan bound (50) at ξ = 0 for K = 2) and its own precisions.
// The lower bound L is the sum of
//
//	⟨ln F⟩ = Σₙ{tₙᵀȳₙ − lse(ψₙ) − gₙᵀ(ȳₙ − ψₙ) − ½(ȳₙ − ψₙ)ᵀA(ȳₙ − ψₙ)}
//	         − ½c₀ Σₙₖ vₙₖ                                              (M9)
//
// (the last term is ½tr(A Cov yₙ) with independent classes) and, for
// each class, the weight terms of the binary model, (41*), (42), (44) and
// (45*) over its active functions:
//
//	⟨ln p(wₖ|αₖ)⟩ + ⟨ln p(αₖ)⟩ + H[Q(wₖ)] + H[Q(αₖ)]               (M10)–(M13)
//
// The tests check (M9)–(M13) against a Monte Carlo average over Q(W) and
// Q_α. With Q(wₖ) at its optimum for the ⟨α⟩ of the other functions and
// the other classes' means, L depends on ⟨αₘₖ⟩ = α through (S1) with the
// statistics of class k,
//
//	sₘ = c₀φₘᵀφₘ − c₀²φₘᵀΦΣ₋ₘΦᵀφₘ,  qₘ = φₘᵀzₖ − c₀φₘᵀΦΣ₋ₘΦᵀzₖ        (M14)
//
// computed without m. A function outside class k's active set is held at
// independent factors at their optimum, contributing excludedTerm with
// s = c₀φₘᵀφₘ (as (S4) of the binary model)                           (M15)
// LowerBound is always this full-model bound. Adding function m to class
// k at its optimum raises it by
//
//	gainₘₖ = max f(·; sₘ, qₘ) − max f(·; c₀φₘᵀφₘ, 0) ≥ 0,  f of (S1).    (M16)
//
// Predictions: the activations at x have means μₖᵀφ(x) and independent
// variances vₖ = φ(x)ᵀΣₖφ(x); Prob returns the moderated softmax
//
//	p = softmax(κ Wᵀφ(x)),  κ = (1 + π v̄/4)^(−½),  v̄ = (1/K)Σₖ vₖ       (M17)
//
// (for two classes the difference of the activations has variance 2v̄,
// and (M17) is MacKay's moderation of the binary model), ProbPlugin the
// softmax of the mean. Both sum to one; Predict takes the largest mean
// activation.
//
// Solvers. PaperSchedule starts from every function in every class and
// updates Q_α (M6), ψ and the means by two Newton rounds towards (M18)
// below (ψ = ȳ (M8) alone is the crawl described there), prunes, and
// updates each Q(wₖ) (M4) in turn.
// Sequential (the default) starts each class from the bias and iterates:
// for each class, Q(wₖ) for the other classes' current means, a sweep
// setting each active ⟨αₘₖ⟩ to the maximiser of (S1) by rank-one updates
// and, every fifth iteration (when every candidate's statistics are
// computed, O(NPM) per class; the others cost O(NM²)), up to eight
// additions by (M16); then ψ and the means jointly at their optimum given
// the Σₖ. Under Böhning's bound (and for the probit) the curvature is one
// constant, so c₀ΦᵀΦ_act and dₘ = c₀φₘᵀφₘ do not change between the
// updates: the columns ΦᵀΦⱼ are computed once per fit, when function j
// first becomes active, the excluded functions' terms (M15) once, and an
// update of Q(wₖ) costs O(NP) for Φᵀzₖ when every candidate's statistics
// are computed, O(NM) otherwise. The means solve
//
//	ψ = ȳ,  μ* = argmax_μ Σₙ{ȳₙ,tₙ − lse(ȳₙ)} − ½ Σₖ μₖᵀdiag⟨αₖ⟩μₖ      (M18)
//
// (with ψ at its optimum (M8), (M3) is tight and L is this concave
// function of μ plus terms of the Σₖ alone), found by joint Newton steps
// over every class's means (Hessian blocks Φₖᵀdiag(pₖ(δₖₗ − pₗ))Φₗ +
// δₖₗdiag αₖ, formed only if gᵀdiag(α)⁻¹g, which bounds the Newton
// decrement gᵀH⁻¹g as H ⪰ diag α, is above the tolerance; while
// Σₖ Mₖ ≤ 2,000; above, as in the paper's schedule,
// by Newton steps on one class at a time, which converge linearly:
// 54 rounds of K class steps per call on digits, 22 s CPU against 5.5 s
// for the joint steps), each kept only if it raises the objective: alternating
// (M8) and (M4) is Böhning's minorise–maximise iteration, which crawls
// where the classes are well separated; then every Q(wₖ) once more. No
// step of the sequential solver lowers L except the removal of a function
// (by its gain); the tests check this after every step on 60 seeded
// problems; the paper's schedule also, between its prunings.
//
// Where each equation is implemented (multiclass_solve.go,
// multiclass_bound.go, multiclass.go). One solver loop, mcProblem.solve,
// serves every likelihood; it talks to the likelihood only through the
// interface mcLikelihood (curvatures, targets, its terms of L, its
// excluded functions' terms, the step on the means and its variational
// parameters), implemented once per likelihood by bohningLik, jcLik and
// probitLik:
//
//	(M3)                    BohningBound, bohning
//	(M4)–(M5), (M7)         mcProblem.fresh, .moments, bohningLik.targets, mcActive.factor
//	(M6)                    mcProblem.solve (the paper's schedule)
//	(M8), (M18)             bohningLik.means, mcProblem.softmaxMeans, .jointMeans
//	(M9)–(M13), (M15)       mcProblem.bound, .weightBound (weightTerms), bohningLik.terms, .excluded
//	(M14), (M16)            mcActive.stats, .add, .remove, mcProblem.bestAddition (alphaRoot, fval)
//	(M17)                   multiFit.Prob
//	(M19)–(M22)             jcCurvature, JCBound, jcRow (multiclass_adaptive.go);
//	                        jcLik.terms, .targets, .adaptivePsi, .means,
//	                        .excluded; mcFixedQ.eval
//	(M23)                   MultiClassifier.secondStart, mcSecondStart (multiclass_restart.go)
//	(M24)                   mcProblem.biasOnly, heldRestart (multiclass_restart.go)
//
// Adaptive curvature (Likelihood SoftmaxAdaptive). Böhning's A is the
// largest curvature of lse anywhere, so (M14) charges every function the
// Occam factor of the least confident point. Jebara & Choromanska (2012)
// give a quadratic bound with the same closed forms that is tight at ψₙ
// and whose curvature depends on ψₙ: with the classes in the order of
// decreasing ψₙₖ (or increasing, below), z ← 0⁺, m ← 0, Aₙ ← 0 and, for
// each class j in turn,
//
//	ρ = ln(e^{ψⱼ}/z),  l = eⱼ − m,  Aₙ ← Aₙ + 2λ(ρ) llᵀ,
//	m ← m + e^{ψⱼ}/(z + e^{ψⱼ}) l,  z ← z + e^{ψⱼ},
//	lse(y) ≤ lse(ψₙ) + gₙᵀ(y − ψₙ) + ½(y − ψₙ)ᵀAₙ(y − ψₙ)             (M19)
//
// (2λ(ρ) = tanh(ρ/2)/(2ρ); the first class adds nothing; m ends as
// gₙ = softmax(ψₙ) and z as Σₖe^{ψₖ}). Derivation: each step adds one
// exponential to a partial sum whose logarithm is already bounded by a
// quadratic; ln(z e^{u} + e^{ψⱼ}e^{v}) is a two-term log-sum-exp, a
// function of the difference along l, bounded by the Jaakkola–Jordan
// quadratic (50) tangent at ρ, curvature 2λ(ρ); by induction the bound
// holds for any order and is tight at ψₙ (and along y = ψₙ + c1: Aₙ1 = 0).
// For K = 2 it is the Jaakkola–Jordan bound at ξ = ψ₁ − ψ₂. Where one
// class dominates, the others' curvatures are about 1/(2Δ) for a margin
// Δ, not ½(1 − 1/K). The row term of L is (M9) with Aₙ for A,
//
//	ℓₙ = tₙᵀȳₙ − lse(ψₙ) − gₙᵀ(ȳₙ − ψₙ) − ½(ȳₙ − ψₙ)ᵀAₙ(ȳₙ − ψₙ) − ½Σₖ Aₙ,ₖₖvₙₖ  (M20)
//
// and, since Aₙ depends on ψₙ, ψₙ = ȳₙ is no longer the maximiser of L
// (it makes the quadratic vanish, not the variance term). ψₙ and the
// order are variational parameters of row n alone, so
//
//	ψₙ ← argmax of (M20) over {current ψₙ, ȳₙ in either order}           (M21)
//
// raises L up to the excluded functions' terms; the solver keeps the
// means at (M18) and ψ by (M21) only if the full L rises, else the means
// stay and ψ moves by (M21) alone if that raises L. Each class's Q(wₖ)
// is (M4) with per-row curvatures Bₙ = Aₙ,ₖₖ and targets
//
//	zₙₖ = tₙₖ − gₖ(ψₙ) + Aₙ,ₖₖψₙₖ − Σ_{j≠k} Aₙ,ₖⱼ(ȳₙⱼ − ψₙⱼ)               (M22)
//
// (for A of (M3) this is (M5)), and (M14)–(M16) take s = φₘᵀBₖφₘ. The
// tests check (M19) against the exact log-softmax on 4,000 random points
// in both orders, (M20) with (M10)–(M13) against a Monte Carlo average,
// the bound after every step on the 60 seeded problems, and the kernel
// gradient (K10) with the curvatures Aₙ.
//
// Second start (softmax under Böhning's bound, small problems). The
// greedy additions from the bias can end in a lower local maximum of L
// than the paper's schedule, which starts every class from every
// function. When mcRestartIter = 5 iterations of the schedule cost at
// most 1e8 flops per class (5·(NP² + P³/3) for P = N + 1 candidates: up
// to about 245 rows), the fit is repeated once, after the kernel is
// learned, from the schedule's state after those iterations, converged
// by the sequential solver, and
//
//	the fit with the higher full-model bound L is kept                (M23)
//
// (as (S6) of the binary models; the Monitor sees the kept bound as one
// more iteration). The width is still chosen by the first start's bound.
//
// Held bias (every likelihood, sequential solver). Where every kernel
// function is nearly the same constant plus a small variation (wide
// kernels, many inputs), the additions from the bias leave the constant
// in every candidate's sₘ, no single function raises L, and the fit can
// end at the bias alone: a constant model, at the median distance on
// four balanced classes in 200 inputs. So can one class, whose
// probability is then flat in x (on six overlapping clusters in two
// dimensions two classes kept the bias alone, and one of them was never
// predicted). Such a fit, every class or one with the bias alone, is
// repeated from the bias held at a nearly flat prior through the first
// phase of an annealed threshold, as the binary models' bias start (S8),
// and
//
//	the fit with the higher full-model bound L is kept                (M24)
//
// (the four classes: 57 functions, L higher by 169 nats, training error
// 10.3% against 75%; the six clusters: a function in every class, L
// higher by 23 nats, test error 17.8% against 22.2%;
// multiclass_restart.go gives the measurements).
//
// Repeated rows. As in the binary models' sequential solver, a function
// whose column repeats an earlier one's (bit for bit or to twinTol: a
// training row written more than once) is never added: the copies would
// share one weight, and the solver crawls between them. On a three-class
// problem of 210 rows in 10 inputs (make_classification, 5 informative)
// with every row written three times, the fit took 28.6 s CPU, 491
// iterations and 92 functions, bound −23676.7; without the copies as
// candidates 1.5 s, 35 functions, −23668.3 (TestMultiRepeatedRows: no
// two copies of a row active; 1,636 iterations before, 41 after). The
// rows themselves are all fitted: each copy weighs as an observation.
//
// Measured (BenchmarkMultiLearned, learned width; error, log loss,
// distinct relevance vectors, learned width; the softmax column the
// default, re-measured in the same period; iris and wine with the second
// start (M23), which does not apply to ripley3 and digits; before it iris
// 2.22%, 0.042, 5 RVs and wine 7.41%, 0.199, 3 RVs):
//
//	set      softmax (Böhning)               softmax-adaptive (M19)
//	iris     2.22%, 0.038, 3 RVs, 1.00√d      2.22%, 0.049, 3 RVs, 0.86√d
//	wine     1.85%, 0.031, 3 RVs, 1.08√d      1.85%, 0.051, 4 RVs, 1.08√d
//	digits   5.93%, 0.232, 67 RVs, 0.61√d     6.11%, 0.218, 80 RVs, 0.67√d
//	ripley3  11.4%, 0.319, 7 RVs, 0.60√d      10.8%, 0.343, 11 RVs, 0.47√d
//
// The adaptive bound is higher on every set (digits −156,229 against
// −156,301) and keeps more functions on digits, but it is not more
// accurate everywhere, and digits takes 136 s CPU with learning (34 s for
// Böhning's, both measured on a loaded machine), over the 30 s budget:
// (M21) and the check of each step cost bound evaluations, and the
// means' step of (M18) is often refused. So Softmax (Böhning) stays the
// default. At fixed widths 0.6√d, 0.8√d and √d (default solver) the
// adaptive bound is less sensitive to the width: digits 6.30%, 6.11%,
// 6.48% (log loss 0.227, 0.226, 0.187; 88, 65, 66 RVs) against Böhning's
// 5.93%, 7.96%, 7.78% (0.222, 0.262, 0.243; 73, 54, 48 RVs); wine 3.70%,
// 0%, 1.85% against 3.70%, 0%, 7.41%; but iris 0%, 4.44%, 2.22% against
// 0%, 0%, 2.22%.
//
// The second start (M23). A first version ran the paper's schedule to
// convergence inside every fit of the width's learning (iris 2.22%,
// 0.051, 3 RVs; wine 1.85%, 0.033, 3 RVs; the schedule's bounds higher:
// iris −3966.4 against −3969.2, wine −4670.3 against −4671.3) and made
// the learned fits of iris and wine 75 to 130 times slower (42 s and
// 27 s on the loaded machine, against 0.3 s and 0.4 s); (M23) runs once,
// at the learned width, and 5 of the schedule's iterations are enough:
// with 5, 10, 20 and 30 it ends on wine at the same fit (−4670.34; 0.5,
// 0.7, 1.2 and 1.7 s CPU) and on iris at −3965.18, −3966.38, −3966.36
// and −3966.38. The learned fits take 0.5 s (iris) and 0.7 s (wine)
// CPU, against 0.2 s and 0.3 s without it; on ripley3 (250 rows, above
// the cost limit) it would raise the bound by 2.4 nats to the same 11.4%
// error in 2.9 s. Taken on 28 of 40 seeded small problems
// (TestMultiSecondStart).
//
// Why wine failed (learned width 1.08√d; each row test errors of 54,
// full-model bound; the rows of the fits' relevance vectors in the
// training file):
//
//	fit                                            errors   bound
//	sequential (first start), rows 16, 72, 86           4   −4671.26
//	paper's schedule, rows 45, 60, 120                  1   −4670.34
//	second start (M23): the schedule's fit              1   −4670.34
//	sequential from every function (no schedule)        1   −4672.37
//	adaptive (M19) from the start                       1   −4668.85 (its bound)
//	adaptive (M19) from the first start's fit           4   −4667.84 (its bound)
//	first start's functions and the bias in every
//	  class, per-class α, no pruning                    2   −4671.90
//	shared-α refit on the contrasts (below)             4   (another model)
//
// Every fit keeps one function per class (no bias): three weighted
// prototypes, yₙₖ = wₖφₘ₍ₖ₎(xₙ), with weights 24–49, and the bound
// differs by about a nat between prototype sets with 1 and 4 errors. The
// cross-class weights and the bias are switched off by their α
// (1,200–3,200 where forced in), although the same three functions with
// every class's weights and an intercept in a dense kernel logistic
// regression (scikit-learn, the ceiling below; rows:16,72,86) give 0
// errors at every C from 10 to 10⁴ (3–4 errors without the intercept).
// So the failure was a local maximum of the bound, which the second start
// escapes, not the width (0.75√d, √d: 1 error; 1.5√d: 0; 0.5√d: 2 with
// the second start).
// The adaptive bound, tighter, prefers the 4-error prototypes when it
// starts from them: it does not separate the two sets either.
//
// A shared-α refit was measured and not kept: the per-class fit's
// functions and the bias in every class with one αₘ per function on the
// K − 1 sum-to-zero contrasts of the weights (Böhning's A is ½ on the
// contrasts and 0 along 1, so Q(W) needs no factorisation over classes;
// Σ = (diag⟨α⟩ + ½ΦᵀΦ)⁻¹ shared by the contrasts, ⟨αₘ⟩ by (P12) with
// q = K − 1). Wine 7.41%, 0.166, 3 RVs (the bias α = 1,629); iris 2.22%,
// 0.046, 3 RVs; ripley3 (√2) 11.4%, 0.289, 5 RVs; digits (0.61√d) 7.22%,
// 0.331, 15 RVs, 19 s, and without pruning 8.33% with 21 functions of
// non-negligible weight in 69 s: as the shared α of the first version,
// it pays each function's Occam factor in K − 1 contrasts at Böhning's
// curvature, and switches off nearly everything on digits.
//
// Per-class precisions and Böhning's bound were chosen by measurement
// (BenchmarkMultiRealData, inputs standardised with training statistics,
// Gaussian width √d, default priors, test error and log loss of Prob):
//
//   - One α shared by the K classes (the first version of this model)
//     pays a function's Occam factor in all K − 1 contrasts: (M14) keeps
//     it only if ‖qₘ‖² > (K − 1)sₘ. Digits (K = 10) kept 13 relevance
//     vectors, 9.63% error, log loss 0.278; iris 4.44%, wine 3.70%,
//     ripley3 11.1%.
//   - Bouchard's (2007) bound, lse(y) ≤ a + Σₖ ln(1 + e^(yₖ−a)) with a
//     Jaakkola–Jordan bound on each term, adapts the curvature to each
//     point and class and also factorises over classes. With per-class
//     α, fitted to convergence, it gave iris 2.22%, wine 1.85%, ripley3
//     9.6%, but digits 6.85% with log loss 0.77 in 66–78 s CPU: its gap
//     Σₖ ln(1 + e^(yₖ−a)) − ln Σₖ e^(yₖ−a) vanishes only when one class
//     dominates, so maximising the bound drives every training point to
//     extreme activations, and the predictions are overconfident.
//   - Böhning's bound with per-class α and the means at (M18), this model:
//     see the table below. It is calibrated (the means are the posterior
//     mode of the true softmax), but c₀ is the largest curvature at every
//     point, so the Occam factor of (M14) is that of the least confident
//     point, and the model is sparse (4 relevance vectors on wine), with
//     results sensitive to the width: before the second start (M23) wine
//     had 0%, 7.41% and 1.85% test error at 0.75√d, √d and 1.5√d
//     (BenchmarkMultiWidths; with it 1.85%, 1.85%, 0%, and 3.70% at
//     0.5√d; iris 2.22% at all four), and the full bound prefers √d.
//
// Measured (BenchmarkMultiRealData, BenchmarkMultiRipley3,
// BenchmarkOvRRealData; width √d; relevance vectors are distinct rows over
// all classes; the sequential column with the second start (M23) on iris
// and wine, before it iris 2.22%, 0.042, 5 RVs, wine 7.41%, 0.228, 4 RVs):
//
//	set      sequential                    paper schedule         one-vs-rest Classifier
//	iris     2.22%, 0.038, 3 RVs           6.67%, 0.079, 5 RVs    0.00%, 0.033, 7 RVs
//	wine     1.85%, 0.033, 3 RVs           1.85%, 0.033, 3 RVs    0.00%, 0.035, 9 RVs
//	digits   7.78%, 0.243, 48 RVs          (> 700 s CPU)          4.07%, 0.235, 106 RVs
//	ripley3  11.2%, 0.297, 6 RVs           10.7%, 0.286, 9 RVs    10.3%, 0.283, 9 RVs
//
// (ripley3: 250 training and 1,000 test points of the three-class Ripley
// problem, inputs standardised, width √2; Bayes error 10.3%. The
// binary fits of iris and wine, at most about 130 rows, take the second
// start (S6); before it one-vs-rest gave iris 4.44%, 0.069, 9 RVs.) Digits
// takes 5.5 s CPU with the sequential solver (22 s before (M18) took
// joint steps, at 7.59%, 0.243, 49 RVs) (one-vs-rest 12 s wall);
// the paper's schedule, which starts every class from all 1,258
// functions, had not finished after 700 s. None of the models measured reaches the SVC's
// 1.67% on digits (scikit-learn, grid-searched width); neither does
// one-vs-rest.
//
// With the default kernel, a Gaussian width learned by the full-model
// bound ((K9)–(K10), learned on 500 rows spread through the training
// set, then one fit on every row; BenchmarkMultiLearned, default solver;
// error, log loss, relevance vectors, learned width):
//
//	set      softmax                               probit
//	iris     2.22%, 0.038, 3 RVs, 1.00√d           4.44%, 0.080, 3 RVs, 0.97√d
//	wine     1.85%, 0.031, 3 RVs, 1.08√d           7.41%, 0.147, 3 RVs, 1.08√d
//	digits   5.93%, 0.232, 67 RVs, 0.61√d          14.1%, 0.437, 9 RVs, 0.97√d
//	ripley3  11.4%, 0.319, 7 RVs, 0.60√d           16.8%, 0.390, 3 RVs, 1.54√d
//
// With learned ARD length scales (LearnKernel, ARDGaussian{}; not run on
// digits): iris softmax 2.22%, 0.063, 3 RVs, probit 0%, 0.063, 3 RVs;
// wine softmax 3.70%, 0.069, 3 RVs, probit 3.70%, 0.070, 3 RVs; ripley3
// softmax 11.8%, 0.300, 6 RVs, probit 16.9%, 0.393, 3 RVs; the bound is
// higher than with one width on every set.
//
// The bound's width is close to √d on iris and wine, and smaller on
// digits, where it also predicts better than √d (7.78%); digits takes
// 18.5 s CPU with learning. On 500 digits rows at width 2.2 (0.28√d,
// an Rprop step) the kernel matrix is nearly the identity and the bound
// becomes NaN after 11–40 iterations (on the solver before this change
// too); the fit then stops with an error and learning rejects the step.
//
// Where the digits gap comes from (issue 18: the SVC's 1.67%, log loss
// 0.120, with 587 support vectors; BenchmarkMultiDigitsDiagnosis, each
// row test error, log loss, distinct relevance vectors, full-model
// bound, CPU seconds on the loaded machine; widths in units of √d):
//
//	what                                  digits
//	Böhning, width 0.4                    bound NaN at iteration 15
//	Böhning, width 0.5                    6.67%, 0.304,  90, −156,321, 27 s
//	Böhning, width 0.61 (the learned)     6.11%, 0.239,  69, −156,305, 17 s
//	Böhning, width 0.75                   5.74%, 0.224,  63, −156,354, 33 s
//	Böhning, width 1                      7.78%, 0.243,  48, −156,414, 13 s
//	adaptive (M19), width 0.5             8.15%, 0.342, 113, −156,234, 121 s
//	adaptive (M19), width 0.61            6.30%, 0.205,  89, −156,225, 73 s
//	0.61, b = 1e-9                        6.11%, 0.239,  69 (the same fit)
//	0.61, a = b = 1e-2                    7.22%, 0.255, 247
//	0.61, PruneAlpha 100 (10 default)     6.11%, 0.237,  70, −156,305
//	0.61, PruneAlpha 1000                 6.30%, 0.232,  93, −156,303, 123 s
//	0.61, Tol 1e-11, ParamTol 1e-6        6.11%, 0.239,  69, −156,305 (96 iterations, 64 by default)
//	0.61, 500 rows, sequential            10.2%, 0.384,  43, −62,285, 3.6 s
//	0.61, 500 rows, paper schedule        9.81%, 0.479,  49, −62,287, 161 s
//	0.61, 500 rows, adaptive              8.15%, 0.318,  56, −62,257, 16 s
//	one-vs-rest, width 0.5, 0.61, 1       6.30%, 5.19%, 4.07%; 0.266, 0.227, 0.235; 144, 135, 106 RVs
//	dense MAP, width 0.61, α = 1e-3       2.78%, 0.094 (every function in every class)
//	dense MAP, width 0.61, α = 1e-2, 0.1  2.96%, 0.107; 3.33%, 0.146
//	dense MAP, width 0.5, α = 1e-3        3.52%, 0.134
//	dense MAP, width 1, α = 1e-3, 1e-2    3.33%, 0.109; 3.33%, 0.097
//
// (dense MAP: the softmax (M1) with a bias and all 1,257 kernel functions
// in every class, one shared precision α, at its posterior mode by
// L-BFGS, plug-in probabilities: no bound, no sparsity.) So the gap is
// not the width (no width of the grid does better than 5.74%, and the
// bound's choice is within 0.4 points of the best), nor the solver (the
// tighter tolerances end at the same fit; on 500 rows the paper's
// schedule ends 2 nats below the sequential solver), nor the rate b of
// p(α) (the same fit at 1e-6 and 1e-9), nor the pruning threshold (at
// 100 the same fit; at 1000, 24 more functions with ⟨α⟩ between 100 and
// 1000, nearly switched off, and 7 times the CPU).
// Böhning's looseness is a part: the adaptive bound is 80 nats higher and
// keeps 20 more functions, with log loss 0.205 for 0.239, but not a lower
// error. What separates 6% from 3% is the sparse ARD model itself: at the
// same width the softmax with every function and one small shared
// precision has 2.78% and 0.094, and more functions by another prior
// (a = b = 1e-2, 247) or by one-vs-rest (135) do not close the gap. 26 test
// rows have a standardised input beyond 6 (a pixel almost constant in the
// training rows; the largest is 85.6), which shrinks every kernel value
// at the row; 5 of the 33 errors at 0.61√d are among them
// (BenchmarkMultiDigitsOutliers). The targets of issue 18 (at most 2.67%
// and 0.120 with at most one-vs-rest's relevance vectors) are therefore
// not met by any sparse variant measured.
//
// The ceiling of the model family (scikit-learn 1.2.1, multinomial
// LogisticRegression on the features exp(−‖x − c‖²/r²), r = w√d, at
// centres c from the training rows, an unpenalised intercept, the L2
// penalty ½‖W‖²/C, i.e. a dense MAP with one shared α = 1/C; C from 1
// (10 for 300 centres) to 1000 and the best C picked on the test rows,
// so optimistic; test errors of 540 (log loss at that C);
// scripts/multiclass_ceiling.py):
//
//	centres                              w = 0.5      0.61         0.75         1
//	all 1,257                            19 (0.134)   15 (0.094)   13 (0.088)   18 (0.097)
//	300 spread through the rows          –            21 (0.147)   18 (0.116)   15 (0.109)
//	130 spread                           –            26 (0.158)   21 (0.140)   23 (0.123)
//	140, 14 per class, spread            –            –            20 (0.135)   23 (0.117)
//	the default fit's 69 RVs (0.61√d)    –            25 (0.177)   20 (0.126)   18 (0.133)
//	the same, no intercept               –            23 (0.165)   –            –
//
// (target: at most 14 errors, log loss 0.120; the 69 RVs' row at C = 10⁴
// for 0.61, 1000 for 0.75 and 1.) Even with every class's weights on
// every centre and C chosen on the test rows, no set of at most 300
// centres reaches 14 errors at the widths the bound chooses (0.5–0.75√d;
// 15 with 300 centres at √d), and only every row at 0.75√d does (13).
// With at most one-vs-rest's 106–144 functions the best is 18–20
// errors (3.3–3.7%). At 0.61√d the sparse per-class model (33 errors)
// loses 1.5–1.9 points to the cross-class weights it switches off (its
// 69 functions with every class's weights: 23–25 errors) and as much
// again to the number of functions (every row: 15).
// The digits targets of point 2 are out of reach of a sparse kernel
// softmax with the relevance vectors of one-vs-rest; iris and wine are
// not (every centre: iris 0 errors at w = √d, C ≥ 10; wine 0 errors at
// w = 0.75–1.25√d, every C; 2 at 0.5√d).
//
// Point 2 of issue 18 with the defaults (learned widths; error (test
// errors), log loss, distinct relevance vectors, CPU s on the loaded
// machine; one-vs-rest: a binary Classifier per class with its default
// learned width, probabilities normalised; targets: SVC + 1 row on iris
// and wine, + 1 point and log loss ≤ 0.120 on digits, and at most
// one-vs-rest's error and relevance vectors):
//
//	set      MultiClassifier                   one-vs-rest                  met
//	iris     2.22% (1), 0.038, 3 RVs, 0.5 s    0% (0), 0.031, 4 RVs, 1.2 s  SVC + 1; not one-vs-rest's 0
//	wine     1.85% (1), 0.031, 3 RVs, 0.7 s    0% (0), 0.020, 8 RVs, 4.2 s  SVC + 1; not one-vs-rest's 0
//	ripley3  11.4%, 0.319, 7 RVs, 1.1 s        11.5%, 0.305, 12 RVs, 2.1 s  yes (Bayes 10.3%)
//	digits   5.93%, 0.232, 67 RVs, 40 s        5.19%, 0.273, 125 RVs, 140 s log loss and RVs; not the error
//
// (digits' targets: 2.67%, log loss 0.120, 30 s; one-vs-rest's error is
// 28 test rows, the multi-class model's 32.) With the predictions
// augmented at the test point (A7), the default since, the same fits
// give iris 0 errors (log loss 0.040), wine 0 (0.028) and digits 30
// (0.238): iris and wine meet both targets; digits does not.
//
// # Multi-class probit
//
// With Likelihood Probit, MultiClassifier uses the multinomial probit
// with auxiliary variables (Girolami & Rogers 2006), with one precision
// per function shared by the classes, as the mRVM of Psorakis, Damoulas
// & Girolami (2010):
//
//	yₙ = Wᵀφₙ + εₙ, εₙ ~ N(0, I),  tₙ = argmaxₖ yₙₖ,
//	p(tₙ, yₙ | W) = N(yₙ | Wᵀφₙ, I) 1[yₙ,tₙ > yₙⱼ ∀j ≠ tₙ]              (P1)
//	p(wₘₖ | αₘ) = N(0, αₘ⁻¹),  p(αₘ) = Γ(a, b)                           (P2)
//
// The posterior is factorised as Q(Y)Q(W)Q_α, and every update is in
// closed form. Given Q(Y), each class is a regression on the targets
// ỹₖ = ⟨yₖ⟩ with unit noise precision,
//
//	Q(W) = ∏ₖ N(wₖ | μₖ, Σ),  Σ = (diag⟨α⟩ + ΦᵀΦ)⁻¹,  μₖ = ΣΦᵀỹₖ         (P3)
//
// with one Σ for every class (the curvature of (P1) in W is the same
// unit for every class, so shared α makes the classes' covariances
// equal). Given Q(W), Q(yₙ) ∝ N(yₙ | ψₙ, I) 1[yₙ,tₙ > yₙⱼ ∀j ≠ tₙ] with
// ψₙ = ȳₙ = μᵀφₙ, the means (M7), a truncated Gaussian whose normaliser
// and moments are one-dimensional integrals over u = yₙ,tₙ − ψₙ,tₙ:
//
//	Zₙ = E_u[∏_{j≠t} Φ(u + ψₙₜ − ψₙⱼ)],  u ~ N(0, 1),  t = tₙ           (P4)
//	ỹₙⱼ = ψₙⱼ − E_f[λ(u + ψₙₜ − ψₙⱼ)] (j ≠ t),  ỹₙₜ = ψₙₜ + Σ_{j≠t}(ψₙⱼ − ỹₙⱼ)  (P5)
//
// with f(u) ∝ N(u)∏_{j≠t}Φ(u + ψₙₜ − ψₙⱼ) and λ = N/Φ the inverse Mills
// ratio (given yₙₜ, each yₙⱼ is a Gaussian truncated above at it). The
// integrand is log-concave; the integrals are computed by Gauss–Hermite
// quadrature (16 nodes) centred at its mode and scaled by its curvature
// there, in log space (ln Φ and λ by erfc, and by the continued fraction
// of Mills' ratio below −5), so that they stay accurate where Zₙ
// underflows. For Q(yₙ) at any ψₙ,
//
//	⟨ln p(tₙ, yₙ | W)⟩ − ⟨ln Q(yₙ)⟩
//	    = ln Zₙ + ½‖ỹₙ − ψₙ‖² − ½‖ỹₙ − ȳₙ‖² − ½Σₖ vₙₖ                  (P6)
//
// (⟨ln N(yₙ | Wᵀφₙ, I)⟩ = −(K/2)ln 2π − ½⟨‖yₙ − ỹₙ‖²⟩ − ½‖ỹₙ − ȳₙ‖² − ½Σₖ vₙₖ
// and −⟨ln Q(yₙ)⟩ = (K/2)ln 2π + ½⟨‖yₙ − ψₙ‖²⟩ + ln Zₙ, whose difference
// of expected squares is ‖ỹₙ − ψₙ‖²), and vₙₖ = φₙᵀΣφₙ for every k. The
// bound L is Σₙ(P6) plus the weight terms, those of (41*)–(45*) with K
// weights per precision:
//
//	Q(αₘ) = Γ(ã, b̃ₘ),  ã = a + K/2,  b̃ₘ = b + ½Σₖ(μₘₖ² + Σₘₘ)
//	⟨ln p(W|α)⟩ = Σₘ{−(K/2)ln 2π + (K/2)⟨ln αₘ⟩ − ½⟨αₘ⟩Σₖ⟨wₘₖ²⟩}
//	H[Q(W)] = K{(M/2)(1 + ln 2π) + ½ ln|Σ|}                              (P11)
//
// and ⟨ln p(α)⟩, H[Q_α] as (42), (45*) with ã: closed-form up to the
// quadrature of (P4)–(P5). The tests check (P4)–(P7) against a
// brute-force rule and Monte Carlo (rejection sampling from N(ψₙ, I)),
// and (P6) against a Monte Carlo average over Q(Y) and Q(W); the weight
// terms are (M10)–(M13)'s, checked there, summed over the K classes.
//
// The sequential solver is Tipping & Faul's with K target columns: with
// Q(W) at its optimum, L depends on ⟨αₘ⟩ = α through
//
//	f_K(α) = ã ln α − bα − (K/2)ln(α + sₘ) + ½Σₖ qₘₖ²/(α + sₘ)
//	       = K f(α; a/K, b/K, sₘ, Σₖqₘₖ²/K),  f of (S1),                  (P12)
//	sₘ = φₘᵀφₘ − φₘᵀΦΣ₋ₘΦᵀφₘ,  qₘₖ = φₘᵀỹₖ − φₘᵀΦΣ₋ₘΦᵀỹₖ,
//
// so alphaRoot gives its maximiser; a function is relevant only if
// Σₖqₘₖ² > K sₘ, roughly. A function outside the active set contributes
// excludedTerm for K outputs (q = 0, s = φₘᵀφₘ, ã = a + K/2), and adding
// it at the optimum of (P12) raises L by the difference of the two
// maxima of (P12), which is ≥ 0                                       (P13).
//
// Alternating (P5) and (P3) is an EM iteration whose step on the means is
// that of the unit noise, which crawls where the classes are well
// separated (thousands of iterations on iris). With Q(Y) at its optimum,
// L is, up to terms of Σ and α, the concave function
//
//	F(μ) = Σₙ ln Zₙ(ȳₙ) − ½Σₖ μₖᵀdiag⟨α⟩μₖ,  ∇ₖF = Φᵀ(ỹₖ − ȳₖ) − diag⟨α⟩μₖ,
//	−∇²F = blocks Φᵀdiag(δₖₗ − Cov_Q(yₙₖ, yₙₗ))Φ + δₖₗdiag⟨α⟩,           (P8)
//	Var_Q(yₙⱼ) = 1 − E_f[λ(z)(z + λ(z))] + Var_f(λ(z)), z = u + ψₙₜ − ψₙⱼ;
//	Var_Q(yₙₜ) = Var_f(u)                                               (P7)
//
// (∇²ln Zₙ = Cov_Q(yₙ) − I; given u the yₙⱼ, j ≠ t, are independent, so
// Cov(yₙⱼ, yₙₗ) = Cov_f(λⱼ, λₗ) and Cov(yₙₜ, yₙⱼ) = −Cov_f(u, λⱼ)). The
// solvers are those of the softmax model with one set of functions, (P12)
// and (P13) in place of (M14) and (M16), (P11) in place of (M6), and (P8)
// in place of (M18): all the means take a joint Newton step (MK
// unknowns, with the Hessian blocks −Φᵀdiag(δₖₗ − Cov_Q(yₙₖ, yₙₗ))Φ −
// δₖₗdiag⟨α⟩, the covariances from the same quadrature), kept only if it
// raises F (halved otherwise), and Q(Y) is left at its optimum (P5) for
// the final means; then Q(W) (P3). ln Zₙ is flat in the direction that
// moves every class alike, so one class's block alone crawls along it
// (on digits it had not converged after 118 iterations; the joint step
// converges in 46, 5 s CPU); the
// blocks alone are used only above MK = 2,000 (the paper's schedule on
// large problems).
// No step lowers L except a removal; the tests check this after every
// step on 60 seeded problems for both likelihoods and both solvers.
//
// Predictions: with the activations' means mₖ = μₖᵀφ(x) and variances
// vₖ = φ(x)ᵀΣφ(x), independent under Q(W), y = Wᵀφ(x) + ε has
// independent yₖ ~ N(mₖ, 1 + vₖ), so Prob returns
//
//	P(t = k | x) = E_u[∏_{j≠k} Φ((u√(1 + vₖ) + mₖ − mⱼ)/√(1 + vⱼ))]       (P9)
//
// by the same quadrature, normalised to sum to one (they do up to its
// error); ProbPlugin is (P9) with v = 0, and Predict takes the largest
// Prob.
//
// Where each equation is implemented (multiclass_probit.go, and the
// solver of the softmax model, whose Q(W) block here holds K outputs):
// (P3) mcProblem.fresh, mcBlock.mean, mcActive.factor, probitLik.targets;
// (P4), (P5), (P7) probitMoments, probitRow, probitLik.setY, .probitPass;
// (P6) probitLik.terms; (P8) probitLik.means, .newtonMeans, .jointStep,
// .blockStep, probitRowCov; (P11) mcProblem.weightBound, .solve (the
// paper's schedule); (P12) mcActive.stats, mcProblem.blockPrior, .solve;
// (P13) mcProblem.bestAddition, probitLik.excluded, probitExcluded;
// (P9) probitProb.
//
// Measured (the benchmarks of the softmax model above, same widths; each
// cell test error, log loss of Prob, distinct relevance vectors):
//
//	set      probit, sequential       probit, paper schedule
//	iris     8.89%, 0.192, 4 RVs      2.22%, 0.055, 3 RVs
//	wine     7.41%, 0.160, 3 RVs      1.85%, 0.069, 3 RVs
//	digits   13.5%, 0.439, 9 RVs      (not run: MK = 12,580 means)
//	ripley3  13.4%, 0.312, 5 RVs      10.4%, 0.286, 6 RVs
//
// The sequential solver fits digits in 5 s CPU (46 iterations) but ends
// at a bound below the paper schedule's on the small sets (iris −1433.1
// against −1424.4, with 4 functions against 3: a different local optimum,
// not a shortage of functions), and on digits the bound keeps 9 functions
// for 10 classes: with unit latent noise the Occam factor of (P12)
// (Σₖqₘₖ² > K sₘ) is paid at the unit curvature, not at the far smaller
// curvature 1 − Var yₙₖ of well classified points. One α per weight with
// the probit (each class its own Σₖ) was built and measured first:
// sequential iris 4.44%, wine 7.41%, ripley3 14.6%, digits 8.89% with log
// loss 0.255, 53 relevance vectors and 123 s CPU; paper schedule iris
// 2.22%, wine 1.85%, ripley3 10.8%; its full bound is far below the
// shared model's (digits −156,497 against −18,150: K excluded terms per
// function), so shared α was kept. The probit is therefore an option:
// Softmax stays the default, more accurate with the default solver on
// every set but wine (equal) and within the 30 s budget on digits.
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
// (*NonFiniteError with What "kernel value"), and a posterior
// precision that stays non-positive-definite after adding diagonal jitter
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
// the first prediction builds (the augmentation's design and residuals at
// the training inputs, and the Σ a fit by the paper's schedule leaves to
// its first use), which is built once under a sync.Once; each call gives
// the result it gives alone, to the bit. Fit and FitContext replace a
// model's state and must not run at the same time as any other method
// of the same value; separate values may be fitted at once, on the same
// inputs too, which a fit only reads. A model keeps its own copy of an
// ARDGaussian's Scales: changing the Scales it was fitted with, or
// FittedKernel's, leaves it as it was. A kernel of your own must not
// change after the fit, and its Eval must allow calls from several
// goroutines at once (predictions and fits evaluate the kernel by blocks
// of rows in parallel). TestConcurrentPredict, TestConcurrentFit and
// TestConcurrentKernelOwned check this under the race detector (go test
// -race -run Concurrent).
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
// # References
//
//   - C. M. Bishop and M. E. Tipping. Variational relevance vector
//     machines. UAI 2000.
//   - M. E. Tipping. Sparse Bayesian learning and the relevance vector
//     machine. JMLR 1:211–244, 2001.
//   - C. E. Rasmussen and J. Quiñonero-Candela. Healing the relevance
//     vector machine through augmentation. ICML 2005.
//   - M. Riedmiller and H. Braun. A direct adaptive method for faster
//     backpropagation learning: the RPROP algorithm. ICNN 1993.
//   - T. S. Jaakkola and M. I. Jordan. Bayesian parameter estimation via
//     variational methods. Statistics and Computing 10:25–37, 2000.
//   - D. Böhning. Multinomial logistic regression algorithm. Annals of the
//     Institute of Statistical Mathematics 44:197–200, 1992.
//   - M. E. Tipping and A. C. Faul. Fast marginal likelihood maximisation
//     for sparse Bayesian models. AISTATS 2003.
//   - M. Girolami and S. Rogers. Variational Bayesian multinomial probit
//     regression with Gaussian process priors. Neural Computation
//     18(8):1790–1817, 2006.
//   - I. Psorakis, T. Damoulas and M. A. Girolami. Multiclass relevance
//     vector machines: sparsity and accuracy. IEEE Transactions on Neural
//     Networks 21(10):1588–1598, 2010.
package vrvm
