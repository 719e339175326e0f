package vrvm

// controls are the switches of the engine's named parts (docs/design.md labels
// them). Each field turns one part off, or forces one path, so that its
// zero value is the default fit with every part on. A fit carries its
// controls in its resolved settings, from the estimator's unexported ctl
// field into every solver the fit runs; the package holds none, so fits
// with different controls may run at the same time. Tests and ablations
// set them; a user cannot.
type controls struct {
	// Kernel learning and the default width.
	noEvidenceStart bool // no (C2): a regression's kernel learning starts at its k0, not at the width of the dense model's evidence (W4)
	noWiden         bool // no (W5): the default width is (W4)'s, never doubled for a crowded fit
	noCrowdLimit    bool // no (C1) nor (C3): kernel learning and second starts do not stop crowded fits
	noHeldout       bool // no (E8): a learned kernel that (E6) or (E7) keeps is kept without the held-out guard
	learnByBound    bool // a regression's LearnKernel learns by the full-model bound (K1)–(K8), not by the dense model's evidence (E2)–(E6), as KernelLearning.ByBound does

	// The sequential solver.
	noRestart   bool // no second start from every function (S6)
	noBiasStart bool // no second start from the bias alone (S8)
	noNewton    bool // no joint Newton steps on the crawl (S7)
	noRelax     bool // no overrelaxed steps (S12)
	noExact     bool // no minimum form of (S14) in the ranking of additions
	noCrawlStop bool // no stop on a crawling bound (S15)
	noCollapse  bool // classification fits every row, duplicated rows not collapsed to counts (seqdup.go)

	// The multi-class VRVM.
	noMCRestart     bool // no second start (M23)
	noMCHeldRestart bool // no restart with a function held in every class (M24)
	probitBlockStep bool // (P8) steps each class's block of the Hessian at any size, never the joint MK × MK step
}
