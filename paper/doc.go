// Package paper reproduces the experiments of Bishop & Tipping,
// "Variational Relevance Vector Machines" (UAI 2000), section 6: Tables
// 1–4 for the relevance vector machine fitted by type-II maximum
// likelihood (RVM, Tipping 2001) and for the variational RVM (VRVM), on the
// fixed data of package datasets, and a study of how often kernel widths
// chosen by cross-validation and by the lower bound agree (package
// selection).
//
// Each function runs one experiment and returns a result struct with the
// averaged scores beside the paper's, the individual runs, the statuses of
// the fits, the run times and a Markdown rendering:
//
//	t, err := paper.Table1(ctx, paper.Options{})
//	fmt.Print(t.Markdown())
//
// # Protocol
//
//	Table 1  sinc regression: the 25 fixed sets of 100 points
//	         (sinc_N100_25sets.csv), Gaussian kernel of width 3 (Tipping
//	         2001); error = RMS deviation of the predictive mean from
//	         sin(x)/x on 1001 equally spaced points of [−10, 10]; noise
//	         estimate 1/√⟨τ⟩ (VRVM) or 1/√β (RVM); no preprocessing.
//	Table 2  Boston housing: the 10 fixed splits into 481 training and 25
//	         test rows; inputs and target standardised with the training
//	         rows' mean and standard deviation, predictions mapped back;
//	         kernel (x·x'/13 + 1)³; error = mean squared error in MEDV
//	         units on the 25 test rows; noise estimate in MEDV units.
//	Table 3  Ripley: the 10 fixed subsets of 100 training rows, Gaussian
//	         kernel of width 0.5 on the raw inputs (the paper's Figure 6);
//	         error = misclassification rate (%) on the 1000 test points.
//	Table 4  Pima: 200 training and 332 test rows; inputs standardised with
//	         the training statistics; Gaussian width chosen for each model
//	         by 5-fold stratified cross-validation on the training rows
//	         (section 6.2) from PimaWidths; error = misclassified test
//	         rows.
//
// Scores are averaged over the data sets "the paper's way": the mean of the
// per-set errors, kernels and noise estimates. Kernels are relevance
// vectors, |⟨wₘ⟩| > 10⁻³, the bias not counted. Test data never influence
// a choice: fixed widths come from the literature, chosen widths from the
// training rows.
//
// Fits run on Options.Workers goroutines; every result is deterministic.
// A cancelled context stops the fits and returns ctx.Err().
package paper
