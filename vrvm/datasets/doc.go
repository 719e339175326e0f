// Package datasets provides the data of the experiments of Bishop & Tipping,
// "Variational Relevance Vector Machines" (UAI 2000): generators for the
// synthetic problems, loaders for the benchmark files, a CSV reader for
// data of one's own, and a downloader for the public data sets.
//
// # Data sets
//
// A Dataset holds N examples as an N×D input matrix X (a gonum mat.Dense,
// one row per example) and N targets T, with the names of the input and
// target columns. Classification targets are the labels 0 and 1.
//
// # Generators
//
// Sinc draws the paper's regression problem (Section 6.1, Figure 3)
//
//	x ~ U(−10, 10),   t = sin(x)/x + ε,   ε ~ N(0, σ²),
//
// and SincTrue is the noise-free function. Ripley draws Ripley's (1996)
// synthetic two-class problem, each class an equal mixture of two
// Gaussians with covariance 0.03·I; RipleyDensity gives its class
// densities, hence the Bayes classifier. Both take a seed and are
// deterministic.
//
// # Benchmark files
//
// The loaders read normalised CSV files (a header line, comma-separated
// numbers, \n line ends, no index column) from the data directory:
//
//	LoadRipley     ripley_train.csv, ripley_test.csv   250 + 1000 rows, inputs xs ys, target yc
//	LoadPima       pima_train.csv, pima_test.csv       200 + 332 rows, 7 inputs, target type (Yes = 1)
//	LoadBoston     boston.csv                          506 rows, 13 inputs, target MEDV
//	SincSets       sinc_N100_25sets.csv, sinc_N50_25sets.csv   25 fixed sets of 100 or 50 points
//	RipleySubsets  ripley_subsets100.csv               10 fixed 100-row subsets of the Ripley training set
//	BostonSplits   boston_splits.csv                   10 fixed 25-row test sets of the Boston data
//
// RipleySubset and BostonSplit return the corresponding data sets. The
// loaders check the header, the number of rows and every cell. LoadCSV
// reads any data file by name, such as the fixed train/test splits
// realworld/iris_train.csv, realworld/iris_test.csv and those of wine and
// digits.
//
// The data directory (Dir) is $VRVM_DATA if set, else "vrvm" in the user
// cache directory (~/.cache/vrvm on Linux).
//
// # Embedded copies
//
// Every file above is embedded in the package (757 kB; the directory
// data beside the source holds them with their provenance and licences),
// so the loaders and LoadCSV work with no data directory: a file the data
// directory lacks is read from the embedded copy, whose errors name it
// "embedded NAME". Ensure writes the embedded copies of missing files into
// the data directory, for programs that read the files by path.
//
// # Downloading
//
// The Ripley, Pima and Boston files are the R package MASS's synth.tr,
// synth.te, Pima.tr, Pima.te and Boston. Fetch downloads a data set from
// the Rdatasets repository at a pinned commit (RdatasetsCommit), checks its
// SHA-256, converts it to the normalised layout (byte-identical to the
// embedded copy, whose SHA-256 is checked as well) and stores it
// atomically. The other sets were generated or split once and are fixed:
// Fetch of one is an error wrapping ErrNotDownloadable. Loaders never
// download.
//
// # CSV files
//
// ReadCSV and ReadCSVOptions read any CSV file with a header into a Table
// of named numeric columns, every cell a finite number; CSVOptions.Labels
// maps text labels such as Pima's Yes/No to numbers. Table.Dataset picks
// the target column by name.
//
// ReadTable reads data as they come, the way the vrvm command reads its
// input: into a Frame of numeric columns, where a missing cell (empty, NA
// or NaN; IsMissing) is NaN, and text columns (categorical inputs, class
// labels; an unquoted NA is missing, a quoted "NA" is text), with the row
// names of R's write.csv and pandas' to_csv as IndexColumn. ReadOptions
// chooses the columns, and columns not chosen are not parsed. What to do
// with missing values is the caller's choice; Frame.Dataset accepts only
// complete numeric columns.
//
// # Standardising inputs
//
// NewScaling computes the means and standard deviations of the training
// inputs' columns and Scaling.Apply (or ApplyTo, for a Dataset) maps any
// rows with them to mean 0 and standard deviation 1, the training rows
// and the rows to predict alike: what vrvm fit's -standardize default
// does, and what the library's default kernel widths assume (they start
// from the distances between the inputs, which one column of a large
// scale would otherwise decide alone). A column with one value is only
// centred (Scaling.Constant lists them); columns of any finite scale,
// 1e200 or 1e-300, are standardised alike; NaN or infinite values are an
// error wrapping ErrNonFinite.
//
// # Errors
//
// Arguments a caller controls (a generator's n or noise, a split number)
// give errors; indexing a Dataset out of range (Subset, Exclude) panics, as
// slicing does. Every problem in a file is a *ParseError naming the file,
// the line (as an editor counts it, the header being line 1) and the
// column (or, for a file-wide problem, only the file), and wrapping one of ErrEmpty, ErrNoRows, ErrHeader,
// ErrFieldCount, ErrNotNumber, ErrMissing, ErrNaN, ErrInf, ErrLabel or
// ErrRowCount. NaN and infinite cells are rejected.
//
// # References
//
// C. M. Bishop and M. E. Tipping, Variational relevance vector machines,
// in Proc. 16th Conf. on Uncertainty in Artificial Intelligence, 2000.
//
// B. D. Ripley, Pattern Recognition and Neural Networks, Cambridge
// University Press, 1996.
//
// D. Harrison and D. L. Rubinfeld, Hedonic prices and the demand for clean
// air, J. Environ. Economics and Management 5:81–102, 1978.
package datasets
