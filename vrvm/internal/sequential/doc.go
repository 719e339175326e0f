// Package sequential is the sequential solver of the binary variational
// RVM, the facade's Sequential method: it maximises the bound one basis
// function at a time, in the manner of Tipping & Faul (2003) and Shutin et
// al. (2011), but on the variational bound of Bishop & Tipping. Setting
// ⟨αₘ⟩ to the maximiser of (S1) (package bound), a root of a cubic, is the
// limit of iterating the paper's Q_w and Q_αₘ updates on coordinate m, so
// no such step decreases L; adding function m at its optimal ⟨αₘ⟩ raises
// the bound of the full model by
//
//	gainₘ = max f(·; sₘ, qₘ) − max f(·; φₘᵀBφₘ, 0) ≥ 0.              (S2)
//
// One iteration of the solver is: a sweep over the active functions, each
// set to the maximiser of (S1) by a rank-one update of Σ and μ, and, if
// that exceeds the pruning threshold, held at its best ⟨αₘ⟩ below it or
// removed from the active set, whichever the full model's bound prefers
// by the margin of (S5); the update of the likelihood's factor (Q_τ
// (26)–(27), or ξ (58)) for the active model; and, when the active set has
// settled, or after a number of iterations (see seqAddEvery), an addition
// round: up to
// seqAddBatch excluded functions, one at a time, each the one with the
// largest gain among those whose optimal ⟨αₘ⟩ is below
// threshold/seqAddMargin or that raise the full bound by the margin of
// (S5) (ranked by the part of (S2) due to qₘ; in large sets at least
// seqLargeGain nats per training row). Every
// third iteration with an unchanged active set, the SQUAREM extrapolation
// of ln⟨α⟩ over the last two sweeps is tried and kept if it raises the
// bound: coordinate ascent alone crawls where two similar functions share
// a weight (with non-uniform precisions, once the threshold is final, of
// ln⟨α⟩ and ln ξ jointly: extrapolateCls). The threshold is annealed
// from seqAnnealStart·PruneAlpha down to PruneAlpha (see seqAnnealStart). Without pruning, every function is
// active from the start and none is added or removed.
//
// The fit has converged when, at the final threshold, an iteration
// changes no ⟨αₘ⟩, ⟨τ⟩ or ξ by more than ParamTol relative and L by more
// than Tol relative, and an addition round finds nothing to add (or the
// same active set and bound recur at such a point: the functions added in
// between, duplicates of active ones, were all removed again), and then
// once more after the polish of (S5), if its first addition round adds
// anything; in a large set whose crawl the joint steps (S7) cannot take,
// also when, over seqCrawlWindow iterations with an unchanged active set,
// the bound has risen by at most seqCrawlGain·N nats and a full addition
// round then finds nothing (S15). On small problems a
// second start follows (S6, seqrestart.go),
// and for regression with a bias and a small active set
// (seqBiasStartWork) a start from the bias (S8, seqbias.go). Where coordinate
// ascent crawls, joint Levenberg–Marquardt steps in ln⟨α⟩ are taken
// (S7, seqnewton.go).
//
// The trace (Result.Trace, Settings.Monitor) holds the bound of the full model, the
// active model's L plus the closed-form terms of the excluded functions
// (excludedBound): sweeps, extrapolations and additions never lower it;
// removals lower it by the removed function's (S2) (less than the margin
// of (S5)), holding an ⟨αₘ⟩ at a threshold lowered by the annealing may
// lower it, and the likelihood's update, optimal for the active model,
// may lower it slightly.
//
// Work and memory: the solver uses the factorisation Φ = U Bᵀ
// (design.Factor, built by the facade), N × r and P × r for the P candidate functions, when the
// kernel matrix's numerical rank r is small (at most N/8 and 512), and
// otherwise the explicit design (U = I, B = Φᵀ, P × N, never an N × N
// factor: the facade's newSeqDesign and Centres); the kernel matrix is never
// formed. With uniform likelihood precisions (regression) it keeps
// G = Φ_AᵀΦ_A, Φ_Aᵀd and the rows of B_A Bᵀ up to date as functions are
// added and removed, Σ and μ by rank-one updates, so that an iteration
// over the M active functions costs O(M³ + M r) (one factorisation, after
// the likelihood's update, which large sets defer: seqTauEvery) and an
// addition O(M² + M r); the statistics of every candidate cost O(P M²),
// once every seqFullEvery rounds, and those
// of a shortlist O(M²) per candidate in between. Otherwise
// (classification) an iteration costs O(N M²) and a round O(N M r + P r M),
// plus O((N + P) r²) for dⱼ = φⱼᵀWφⱼ only when some precision has moved
// by more than seqWeightTol since they were last computed; the products
// with the active design that only the precisions and the active set
// determine are kept between the rebuilds of Q_w (clsCache), and
// duplicated rows are fitted once, with their counts (the facade's seqdup.go; seqtwins.go here).
//
// The choices of how the fit proceeds that differ between the two kinds
// of likelihood (the annealing's start, the interval and size of the
// addition rounds, the joint step on the crawl, the rules of large sets,
// ...) are the fit's schedule, a seqSchedule chosen once from the
// likelihood (newSeqSchedule) and read by name; seqFit.uniform only
// selects what can be computed.
//
// The facade (package vrvm, whose Regressor and Classifier call it, and
// its kernel learning) builds the inputs, a design.Factor, a likelihood,
// Settings and Inputs, calls Fit and reads back a Result. Equations (S1)–
// (S15) are those of the library's design notes (docs/design.md). The
// package imports nothing of the library it serves.
package sequential
