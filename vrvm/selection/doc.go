// Package selection chooses the kernel of a relevance vector machine from a
// list of candidates, in the two ways that Bishop & Tipping (2000) discuss:
// by k-fold cross-validation, as the paper's experiments chose Gaussian
// widths (section 6, 5-fold), and by the variational lower bound, which
// approximates the log evidence and needs no validation data (section 3).
//
// # Cross-validation
//
// The N training rows are split into k folds by a permutation drawn from a
// seed (KFold; StratifiedKFold keeps the class proportions in every fold
// and is the default for classifiers). Each candidate is fitted k times,
// each time on all folds but one, and scored on the fold left out. The
// cross-validation error is pooled over the folds,
//
//	CV = (1/N) Σₙ e(tₙ, ŷ₋ₙ),
//
// with e the squared error (regression) or the 0–1 loss (classification)
// and ŷ₋ₙ the prediction of the fit that did not see row n. The mean
// negative log predictive probability of the held-out targets,
//
//	NLP = −(1/N) Σₙ ln p(tₙ | xₙ, fit without row n),
//
// the Gaussian predictive density N(tₙ | μ(xₙ), σ²(xₙ)) of (37)–(38) for
// regression and the moderated probability σ(κ(s²)μ) for classification,
// is reported beside it and breaks ties of CV, which are common for the
// 0–1 loss on small data sets. Remaining ties go to the candidate listed
// first.
//
// # Lower bound
//
// Each candidate is also fitted once to all N rows, and the candidate with
// the largest bound on the log evidence of the paper's model is chosen:
// the variational lower bound L (section 3; (39)–(46) for regression,
// (59)–(64) for classification) for the variational models, the log
// evidence ln p(t | α, β) for the type-II maximum likelihood RVM.
//
// The paper's model has N+1 basis functions, but a fit with pruning (the
// library's default) reports the bound of the smaller model made of the
// functions still active at its end (Candidate.Bound). That is not a fair
// criterion across kernels: every function in a model contributes a
// Gamma–Gaussian Occam term of about −13 nats for the default hyperprior
// a = 10⁻⁶, relevant or not (PrunedContribution), so the bound of the
// active set favours the kernels that keep fewest functions. On 40 sinc
// points it prefers a width-30 Gaussian with one relevance vector and
// noise estimate 0.34 (L = −41.4) to width 3 with five and 0.096
// (L = −51.1), while the full model's bound, computed without pruning,
// prefers width 2 or 3 by 40 nats.
//
// Candidate.FullBound is therefore the estimator's FullModelBound: the
// bound of the full model at the solution the fit found, with each pruned
// function m held at the factor Q(wₘ) = N(0, vₘ), independent of the other
// weights, and its own Q_αₘ, both at their closed-form optimum (see
// vrvm's FullModelBound). That is L(Q) of the full model for a valid Q, a
// true lower bound on its log evidence, computed the same way by every
// solver and saved with the model. Bound, the estimator's own value, is
// reported beside it.
//
// # Parallelism and determinism
//
// The k·C fold fits and C full fits of C candidates are independent and run
// on Workers goroutines (default GOMAXPROCS). Fold assignment depends only
// on the seed and the fits are deterministic, so the result does not
// depend on Workers or on scheduling.
//
// # Errors
//
// Invalid searches (no candidates, a nil kernel, no estimator or more than
// one, k < 2 or k > N, negative Workers, empty or mismatched data) return
// an error before any fit. A candidate whose fit fails on some fold keeps
// the error in Candidate.Err and is not selected; the search fails with a
// *FitError only when every candidate failed.
//
// # References
//
// C. M. Bishop and M. E. Tipping, Variational relevance vector machines,
// UAI 2000, sections 3 and 6.
//
// M. E. Tipping, Sparse Bayesian learning and the relevance vector
// machine, JMLR 1 (2001) 211–244.
package selection
