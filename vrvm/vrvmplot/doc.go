// Package vrvmplot draws the figures of the variational relevance vector
// machine (package vrvm; Bishop & Tipping, UAI 2000) with gonum/plot.
//
// # Figures
//
// Each function returns a *Figure, one or more gonum/plot panels:
//
//	RegressionFit    predictive mean, ±2σ bands, data, relevance vectors (Figure 3)
//	Weights          posterior mean weights ⟨wₘ⟩ as stems            (Figure 4, right)
//	AlphaHistogram   histogram of log₁₀⟨αₘ⟩                          (Figure 4, left)
//	DecisionMap      P(t = 1 | x) of a 2-D classifier, contours, data (Figure 6)
//	PredictedVsTrue  a regressor's predictive means ±2σ against the targets
//	Reliability      a classifier's reliability (calibration) diagram
//	BoundTrace       lower bound L and |ΔL| per iteration
//	XiActivation     Jaakkola–Jordan ξₙ against |μᵀφ(xₙ)|
//	JaakkolaJordan   σ(z) and its lower bound (50) for several ξ
//	MarginalPrior    Student-t marginal prior against the Laplace prior (Figure 1)
//
// ProbabilityGrid and Grid sample a classifier on a grid for
// plotter.HeatMap and plotter.Contour.
//
// # Displaying and saving
//
// A *Figure has a PNG() []byte method, so a gophernotes cell that ends
// with one displays it; Image returns it as an image.Image. Save writes a
// file in the format named by the extension (png, svg, pdf, eps, jpg,
// tif, tex), at the figure's Width × Height; WriterTo and WriteTo write
// to memory. The panels are ordinary *plot.Plot values: change a title,
// an axis range or add a plotter before drawing.
//
//	fig, err := vrvmplot.RegressionFit(r, x, t, vrvmplot.FitOptions{True: datasets.SincTrue})
//	if err != nil { … }
//	fig.Panels[0].Title.Text = "sinc, 50 points"
//	err = fig.Save("sinc.svg")
//
// # Data and errors
//
// The figures of a fitted model take its training set, because the model
// keeps only the centres of its active kernel functions: each active
// function is found in x by its centre (Inputs), which also checks that x
// is the training set. Nothing panics on bad input: a model that is not
// fitted (errors wrapping vrvm.ErrNotFitted), inputs of the wrong
// dimension, empty data (plotter.ErrNoData), NaN or ±Inf (plotter.ErrNaN,
// plotter.ErrInfinity, naming the element) and invalid options are
// returned as errors.
//
// # Text
//
// The labels are plain text in the Liberation fonts of gonum/plot, which
// lack the angle brackets ⟨⟩ and most subscripts: a posterior mean ⟨w⟩ is
// written E[w] on the figures, log₁₀ as log10.
//
// # Reproducible figures
//
// The examples are golden-image tests (gonum.org/v1/plot/cmpimg): each
// writes testdata/name.png, compared with testdata/name_golden.png. They
// fit with explicit MaxIter, Tol, ParamTol and PruneAlpha, so that the
// images do not follow changes of the solver's defaults; a change of the
// solver itself changes them. Regenerate with
//
//	go test ./vrvm/vrvmplot -regen
//
// and look at the images before committing them.
package vrvmplot
