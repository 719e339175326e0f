// Package kernlearn learns the Gaussian kernel of a regression by the
// evidence of the dense model: the default width (W1)–(W6), and the
// Gaussian-process evidence of one width or of ARD length scales with a
// hyperprior, restarts and a guard against the default (E1)–(E7)
// (docs/design.md, "The default width"; docs/kernel-learning.md).
//
// It depends on kernels only through the Kernel interface and a function
// that returns the Gaussian kernel at a width, which the vrvm package
// passes; it does not import that package. The sparse fit at the learned
// kernel, and its doubling while crowded (W5), are the vrvm package's.
//
// # The default width
//
// The default width of vrvm.Regressor (a nil Kernel): the Gaussian width that
// maximises the evidence of the dense model, every kernel function kept
// with one shared weight precision (docs/design.md, "The default width", (W1)–(W4)),
// doubled while the sparse fit at it is crowded ((W5), in the vrvm package).
//
// On m rows x₁ … xₘ with targets t, the dense model is
//
//	t = b1 + PKw + ε,   w ~ N(0, α⁻¹I),   ε ~ N(0, β⁻¹I),   Kᵢⱼ = K(xᵢ, xⱼ),   (W1)
//
// with P = I − 11ᵀ/m (each kernel function centred over the rows, as in
// Bayesian ridge regression with an intercept) and a flat prior on the
// bias b. Since 1 is an eigenvector of the marginal covariance
// β⁻¹I + α⁻¹PKKP, integrating b out leaves the density of the centred
// targets t̃ = Pt on the m − 1 directions orthogonal to 1. With
// PKKP = Σᵢ gᵢuᵢuᵢᵀ and zᵢ = uᵢᵀt̃,
//
//	ln p(t̃ | α, β, r) = −½ Σᵢ [ln 2π + ln cᵢ + zᵢ²/cᵢ] + ½ [ln 2π − ln β],
//	cᵢ = 1/β + gᵢ/α,                                                      (W2)
//
// the sum running over all m eigenvectors and the last term removing that
// of 1/√m (g = 0, z = 0), which need not be one of the uᵢ computed when
// PKKP has other zero eigenvalues. α and β
// take their type-II maximum (MacKay 1992), the fixed point of
//
//	α = γ/‖μ‖²,   β = (m − 1 − γ)/‖t̃ − PKμ‖²,   γ = Σᵢ βgᵢ/(α + βgᵢ),
//	‖μ‖² = Σᵢ β²gᵢzᵢ²/(α + βgᵢ)²,   ‖t̃ − PKμ‖² = Σᵢ α²zᵢ²/(α + βgᵢ)²,          (W3)
//
// each iteration O(m) once PKKP is decomposed. The width r maximises
//
//	E(r) = max_{α,β} ln p(t̃ | α, β, r)                                      (W4)
//
// over ln r, by doubling and halving from the inputs' MedianDistance until
// E falls on both sides, then successive parabolic interpolation (golden-section steps where
// the parabola fails) until the bracket on ln r is narrower than 0.05.
// The search halves up to 4 times and doubles up to 3 times: for a
// target nearly linear in the inputs E keeps rising with r, toward a
// global polynomial, and at widths of many times the MedianDistance every
// kernel function is nearly the bias plus a small linear term, collinear
// with the bias to within (d/r)²; the sparse fit assembles such functions
// from its bias start (S8). 3 doublings is the limit: at 16 times the
// MedianDistance the sparse fit ends below the mean's bound
// (docs/benchmarks.md, "Measurements behind choices in the code").
//
// Since α = ∞ (every weight zero, the noise alone) is a limit of the
// model, E(r) is at least its value there, the same at every width:
//
//	E(r) ≥ E∞ = −½(m − 1)[ln 2π + ln(‖t̃‖²/(m − 1)) + 1],   β = (m − 1)/‖t̃‖²   (W6)
//
// and (W3) runs to it where the targets' projections zᵢ on the kernel's
// directions are no larger than noise: for large α it multiplies α by
// about Σgᵢ/(βΣgᵢzᵢ²), above 1 when Σgᵢ(βzᵢ² − 1) < 0. DenseModel.Evidence stops
// the iteration once every ρᵢ = βgᵢ/(α + βgᵢ) is below widthNoSignal
// (E then differs from E∞ by O(ρ) per direction) and returns E∞
// with α = ∞; it returns E∞ too if the fixed point ends below it. Where
// E is E∞ at r0 and at both neighbours, the evidence gives the search no
// direction: it evaluates every width of its range (the halvings and
// doublings) and brackets the best, or keeps r0 if none is above E∞.
// This happens on targets with little signal on few distinct inputs,
// such as pure noise on 10 inputs each measured 5 times (repeated
// measurements are kept, (D1)); without (W6) the iteration would run α
// up until α² overflowed, β became 0 and the evidence NaN, or, on a
// plateau of E level to rounding, walk the search by rounding errors
// (TestDefaultWidthNoSignal).
//
// # Learning by the evidence
//
// Kernel learning of a regression by the evidence of the dense model
// (docs/kernel-learning.md, (E1)–(E6)). The dense model of (W1), every
// kernel function kept with one weight precision α, is a Gaussian
// process on the centred targets t̃ with covariance
//
//	C = β⁻¹I + α⁻¹PKKP,   P = I − 11ᵀ/m,                                  (E1)
//
// and its log evidence on the m − 1 directions orthogonal to 1 is
//
//	E = −½ t̃ᵀC⁻¹t̃ − ½ ln|C| − ½m ln 2π + ½(ln 2π − ln β),                  (E2)
//
// (W2) without the eigendecomposition: C1 = β⁻¹1, and the last term
// removes that direction. Its gradient in any parameter θ of C is
// ½ tr(A ∂C/∂θ) with A = aaᵀ − C⁻¹, a = C⁻¹t̃ (a ⊥ 1), which gives
//
//	∂E/∂ln β = (tr C⁻¹ − aᵀa)/(2β) − ½,
//	∂E/∂ln α = −½ aᵀ(t̃ − a/β) + ½(m − tr C⁻¹/β),                           (E3)
//	∂E/∂uₖ   = α⁻¹ Σᵢⱼ Gᵢⱼ ∂Kᵢⱼ/∂uₖ,   G = K·PAP,   PAP = A + β11ᵀ/m,
//
// with uₖ = ln ℓₖ and ∂Kᵢⱼ/∂uₖ = 2Kᵢⱼ(xᵢₖ − xⱼₖ)²/ℓₖ² (K2) (one width: the
// sum over k). The length scales carry the hyperprior
//
//	ln p(u) = −Σₖ δₖ²/(2s²),   s = ln(100)/√2,                              (E4)
//	δₖ = min(0, uₖ − ln r) + max(0, uₖ − ln r − ln 10⁴),
//
// with r the width of (W4): a scale a factor of 100 narrower than r costs
// one nat, so that a scale far narrower than r must buy its cost in fit;
// between r and 10⁴r it costs nothing (a wide scale switches its input
// off, and the evidence of an input the targets do not depend on is flat
// there); beyond, the quadratic wall keeps ln ℓ finite. α and β have
// flat priors on their logarithms (type-II maximum likelihood, as in
// (W3)). E + ln p(u) is maximised jointly in (u, ln α, ln β) by L-BFGS
// from (W4)'s optimum (every ℓₖ = r) and, for length scales, from twice
// and half of it too (E5); the best end is kept, and the scales whose
// inputs cost less than a nat are switched off (Evidence.SwitchOff, (E6)).
package kernlearn
