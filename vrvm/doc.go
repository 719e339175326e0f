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
// function's contribution (S2), by less than 1 nat (0.1 in the final
// polish; pruning trades bound for sparsity, (S5) in sequential.go),
// holding an ⟨αₘ⟩ at a threshold lowered by the annealing, and
// the Q_τ or ξ update, which is the paper's and optimal for the active
// model, ignores how the excluded functions' terms depend on τ or ξ. The
// paper's schedule and the Newton solver report the active model's L, as
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
// the same threshold and keeps somewhat fewer (5.8 vectors and RMS error
// 0.0368 on the 25 sinc sets, 4.1 vectors and 9.25% on Ripley); see
// Solver. Whatever the solver, FullModelBound is the bound of the full
// model, every pruned function held at its own closed-form optimum.
//
// A fit converges when, over one iteration, the bound changes by at most
// Tol·max(1, |L|) and every monitored parameter (⟨αₘ⟩, ⟨τ⟩ or ξ) by at most
// ParamTol relative. Reaching MaxIter is reported as the Status
// IterationLimit, not as an error. A Monitor can watch each iteration and
// stop the fit; FitContext stops when its context is cancelled and keeps
// the state reached.
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
// is a kernel, RegisterKernel makes it savable.
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
//	(K3)–(K6)               fixedQ.eval
//	(K7)–(K8)               learnKernel, KernelLearning.scalePrior
//	(A1)–(A5)               augmentation.adjust, alphaStar
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
// therefore refits twice, from an empty model and from the best fit's
// active set, ⟨α⟩ and Q_τ (or ξ), and keeps the better. A fit whose V
// falls below the best is undone (iRprop+): the next step leaves the
// best fit again, with δₖ halved for the parameters whose gradient
// changed sign at the rejected θ (for every one if none did). Every
// length scale moves on its own from the first step: moving them
// together along Σₖ ∂V/∂uₖ, as an earlier version did, hid opposite
// signs (−241 and −264 for inputs 1 and 2, +39 to +78 for the others at
// the start) behind a small positive sum, so that the tied steps went
// the wrong way for inputs 1 and 2 and lowered V. An ARD length scale
// that grows beyond 10 standard deviations of its input, where K hardly
// depends on the input, is tried once at the upper bound (the input
// switched off), in the same refit as the other steps and judged by V
// like them. Learning stops after
// KernelLearning.MaxRefits fits or when every δₖ is below 0.02. With
// more than KernelLearning.MaxRows training rows (500 by default), θ is
// learned on that many rows spread evenly through the training set and
// the model is then fitted on every row at the learned θ, so that
// learning costs a small multiple of one fit (LearnTrace then holds the
// bounds of the fits on those rows).
//
// A nil Kernel of Regressor and Classifier means this procedure for a
// Gaussian width started from the inputs' MedianDistance: the default
// kernel is learned, not fixed.
//
// A Gamma hyperprior Γ(θ | a_θ, b_θ) on
// each θ (KernelLearning.ScaleShape, ScaleRate) adds, in u,
//
//	ln p(u) = a_θ u − b_θ eᵘ + const                                   (K8)
//
// to V. Learning starts from the given parameters, or where they are zero
// from the inputs' MedianDistance. One gradient costs O(N²d) kernel
// derivatives and N² kernel values in memory, beside the fits.
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
// precisions Bₙ and the residuals.
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
// then re-estimates β (eq. 47). The factors come from
//
//	Sₘ = βφₘᵀφₘ − β²φₘᵀΦΣΦᵀφₘ,  Qₘ = βφₘᵀ(t − Φμ);
//	active m: sₘ = 1/Σₘₘ − αₘ,  qₘ = μₘ/Σₘₘ,                              (R5)
//
// computed for every candidate from the factorisation Φ = U Bᵀ of the
// design (factor.go), without an N × N matrix.
//
//	(R1)–(R4)               bestMove; (R5) rvmState.factors
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
//	p(wₘₖ | αₘ) = N(0, αₘ⁻¹),  p(αₘ) = Γ(a, b)                         (M2)
//
// with one precision αₘ per basis function shared by the K classes, so
// that a function is relevant or pruned for every class at once: one set
// of relevance vectors. The softmax is bounded below by Böhning's
// inequality (Böhning 1992): the Hessian of lse(y) = ln Σₖ exp(yₖ) is at
// most A = ½(I − 11ᵀ/K), so, with g = softmax,
//
//	ln P(tₙ | yₙ) ≥ tₙᵀyₙ − lse(ψₙ) − gₙᵀ(yₙ − ψₙ) − ½(yₙ − ψₙ)ᵀA(yₙ − ψₙ)  (M3)
//
// for any ψₙ, with equality at yₙ = ψₙ (BohningBound). The bound is
// quadratic in W, so every factor has a closed form. A has the
// eigenvalue ½ on the K − 1 contrasts and 0 on 1, and the prior (M2) is
// isotropic over classes; in the eigenbasis of A the K-class weight
// posterior splits into K − 1 identical M × M problems and one that is the
// prior alone:
//
//	Q_W:  Σ = (diag⟨αₘ⟩ + ½ΦᵀΦ)⁻¹,  rₙ = tₙ − g(ψₙ) + Aψₙ               (M4)
//	      ⟨W⟩ = μ = ΣΦᵀR,  Cov(wₘₖ, wₗⱼ) = Σₘₗ(δₖⱼ − 1/K) + δₘₗ/(Kα⁰ₘ)   (M5)
//	Q_α:  ã = a + K/2,  b̃ₘ = b + ½ Σₖ⟨wₘₖ²⟩                            (M6)
//	      Σₖ⟨wₘₖ²⟩ = Σₖ μₘₖ² + (K − 1)Σₘₘ + 1/α⁰ₘ                        (M7)
//	ψ:    ψₙ = μᵀφₙ                                                    (M8)
//
// where α⁰ = ⟨α⟩ at the Q_W update. Rows of R and of μ sum to zero; the
// direction that adds one function to every class keeps its prior, which
// cancels from every probability. One M × M Cholesky factorisation per
// update serves all K classes. Unlike the Jaakkola–Jordan bound (50),
// whose curvature 2λ(ξₙ) adapts to each point, Böhning's curvature ½ does
// not depend on ψ, so Σ depends on ⟨α⟩ only; the price is that the bound
// is loose where a point is classified with confidence.
//
// The lower bound L is the sum of
//
//	⟨ln F⟩ = Σₙ{tₙᵀȳₙ − lse(ψₙ) − gₙᵀ(ȳₙ − ψₙ) − ½(ȳₙ − ψₙ)ᵀA(ȳₙ − ψₙ)}
//	         − (K − 1)/4 Σₙ φₙᵀΣφₙ,  ȳₙ = μᵀφₙ                          (M9)
//	⟨ln p(W|α)⟩ = −MK/2 ln 2π + K/2 Σₘ⟨ln αₘ⟩ − ½ Σₘ⟨αₘ⟩Σₖ⟨wₘₖ²⟩       (M10)
//	⟨ln p(α)⟩   = Σₘ{a ln b + (a − 1)⟨ln αₘ⟩ − b⟨αₘ⟩ − ln Γ(a)}         (M11)
//	H[Q_W]      = MK/2 (1 + ln 2π) + (K − 1)/2 ln|Σ| − ½ Σₘ ln α⁰ₘ      (M12)
//	H[Q_α]      = Σₘ{ln Γ(ã) − (ã − 1)ψ(ã) − ln b̃ₘ + ã}                 (M13)
//
// (the last term of (M9) is ½⟨(yₙ − ψₙ)ᵀA(yₙ − ψₙ)⟩'s covariance part,
// ½tr(A Cov yₙ)). The tests check (M9)–(M13) against a Monte Carlo
// average over Q_W and Q_α with the MK × MK covariance built explicitly.
// With Q_W at its optimum for the ⟨α⟩ of the other functions, L depends
// on ⟨αₘ⟩ = α of one function through, with c = (K − 1)/2,
//
//	f(α) = (a + c) ln α − bα − c ln(α + sₘ) + ½‖qₘ‖²/(α + sₘ)          (M14)
//
// where sₘ = ½φₘᵀφₘ − ¼φₘᵀΦΣ₋ₘΦᵀφₘ and qₘ = φₘᵀR − ½φₘᵀΦΣ₋ₘΦᵀR (a
// K-vector) are computed without m; for K = 2 it is (S1). A function
// outside the active set is held at independent factors at their
// optimum, contributing, with α the maximiser of (M14) at q = 0 and
// s = ½φₘᵀφₘ, the terms (M10)–(M13) of m and −(K − 1)/2 s/(α + s) of
// (M9):                                                             (M15)
// LowerBound is always this full-model bound. Adding function m at its
// optimum raises it by
//
//	gainₘ = max f(·; sₘ, qₘ) − max f(·; ½φₘᵀφₘ, 0) ≥ 0.                (M16)
//
// Predictions: the activations at x have mean μᵀφ(x) and covariance
// v(I − 11ᵀ/K), v = φ(x)ᵀΣφ(x); Prob returns the moderated softmax
//
//	p = softmax(κ μᵀφ(x)),  κ = (1 + πv/4)^(−½)                         (M17)
//
// (for two classes the difference of the activations has variance 2v,
// and (M17) is MacKay's moderation of the binary model), ProbPlugin the
// softmax of the mean. Both sum to one; Predict takes the largest mean
// activation.
//
// Solvers. PaperSchedule starts from every function and updates Q_α
// (M6), ψ (M8), prunes, and updates Q_W (M4)–(M5) in turn. Sequential
// (the default) starts from the bias and iterates: Q_W for the current ⟨α⟩
// and ψ; a sweep setting each active ⟨αₘ⟩ to the maximiser of (M14) by
// rank-one updates; up to eight additions by (M16); then ψ and the mean of
// Q_W jointly at their optimum given Σ and ⟨α⟩, which is
//
//	ψ = Φμ*,  μ* = argmax_μ Σₙ{tₙᵀΦμ − lse(μᵀφₙ)} − ½ Σₘ⟨αₘ⟩‖μₘ‖²        (M18)
//
// (L with ψ at its optimum (M8) is this concave function of μ plus terms
// of Σ alone), found by Newton's method with conjugate gradients
// preconditioned by Σ: alternating (M8) and (M5) is Böhning's
// minorise–maximise iteration, which needed hundreds of cycles per
// iteration on iris. No step of either solver lowers L except the
// removal of a function (by its gain (M16)); the tests check this after
// every step on 60 seeded problems.
//
// Measured (BenchmarkMultiRealData, BenchmarkOvRRealData; inputs
// standardised with training statistics, Gaussian width √d, default
// priors and threshold), test errors and log loss of Prob:
//
//	set      sequential             paper schedule         one-vs-rest Classifier
//	iris     4.44%, 0.078, 3 RVs    2.22%, 0.046, 3 RVs    4.44%, 0.069, 9 RVs
//	wine     3.70%, 0.125, 3 RVs    1.85%, 0.049, 3 RVs    0.00%, 0.044, 8 RVs
//	digits   9.63%, 0.278, 13 RVs   6.85%, 0.246, 13 RVs (at the 10,000-iteration limit)
//
//	ripley3  11.1%, 0.285, 5 RVs    10.6%, 0.286, 6 RVs    10.3%, 0.283, 9 RVs
//
// (ripley3: 250 training and 1,000 test points of the three-class Ripley
// problem, inputs standardised and width √2 as for the other sets, Bayes
// error 10.3%; BenchmarkMultiRipley3.) One precision αₘₖ per weight
// instead of one per function (the paper's schedule with the dense
// MK × MK precision, BenchmarkPerClassAlpha) is no more accurate on the
// small sets: iris 2.22% with 5 relevance vectors, wine 1.85% with 4,
// ripley3 (width 0.5) 11.2% with 6. Bouchard's (2007) bound, whose
// Jaakkola–Jordan curvatures 2λ(ξₙₖ) adapt to each point and class
// (BenchmarkBouchard, a test-only paper-schedule fit with the shared α
// and K factorisations per iteration), gives iris 2.22% with 5 relevance
// vectors, wine 1.85% with 3, ripley3 (width 0.5) 10.1% with 7 (plug-in
// log losses 0.024, 0.028 and 0.363); it was not measured on digits,
// where that fit is too slow.
//
// Why the model is too sparse on digits (measured with the default
// solver unless stated; the benchmarks named reproduce each figure):
//
//   - Not the kernel width. At c√d, c = 0.5, 0.75, 1, 1.5
//     (BenchmarkMultiWidths), digits has 14.4%, 8.5%, 9.6%, 7.8% test
//     error with 16, 13, 13, 12 relevance vectors; iris 2.22%, 2.22%,
//     4.44%, 2.22%; wine 7.41%, 1.85%, 3.70%, 7.41%. No width comes near
//     2.67% on digits. The width maximising the full bound would be the
//     widest on digits and iris (digits' bounds −18244, −18004, −17981,
//     −17968), c = 1 on wine, and c = 1 of 0.5 and 1 on ripley3 (11.6%
//     at c = 0.5).
//   - Not pruning. With NoPrune (every function kept to the end, ⟨α⟩
//     learned), iris and wine keep 5 functions with a weight above
//     RelevanceThreshold out of 105 and 124, and 2.22% and 3.70% error.
//   - Not Böhning's curvature as such. With two classes (M3) is the
//     Jaakkola–Jordan bound with ξ = 0 at every point, the least adapted
//     curvature; yet MultiClassifier matches the binary Classifier
//     (BenchmarkMultiTwoClass): breast 4.68% with 6 relevance vectors
//     against 4.09% with 8, digits 3 vs 8 1.85% with 6 against 1.85%
//     with 6.
//   - The α shared by K classes. With a, b → 0, (M14) has a finite
//     maximiser if and only if ‖qₘ‖² > (K − 1)sₘ: a function enters with
//     an Occam factor paid in all K − 1 contrast directions, while a
//     function that separates one class from the rest explains data in
//     one of them. For K = 2 the condition is the binary model's q² > s;
//     on digits (K = 10) such a function must explain nine times as
//     much. The diagonal bound with one αₘₖ per class
//     (BenchmarkDiagonalBound: curvature ½I ⪰ A, a valid but looser
//     bound that decouples the classes, so that the per-class precisions
//     cost K M × M factorisations, not one MK × MK) gives digits 5.19%
//     error, log loss 0.152, 55 relevance vectors, with only every fifth
//     training row as a candidate and stopped at 1,500 iterations, and
//     4.63%, 0.128, 56 from every second row at 3,000 iterations (44 s
//     CPU) — against 9.63% with 13 from every row; still above 2.67%, as
//     the paper's schedule leaves it unconverged and ½I is looser than A.
//     On iris, wine and ripley3 it gives
//     2.22% (3 relevance vectors), 1.85% (4) and 10.4% (10), as the shared
//     α.
//
// A per-class α with a sequential (constructive) solver per class is the
// way to close the gap on many classes; the shared α is kept as the
// default for now, as it is as accurate on three classes with a third of
// the relevance vectors.
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
// return ErrNotFitted; prediction at zero rows returns empty slices; the
// accessors of fitted state (Mean, Alpha, …) panic on an unfitted model, as
// they are a programmer error.
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
package vrvm
