package datasets

import (
	"fmt"
	"strings"
)

// RdatasetsCommit is the commit of github.com/vincentarelbundock/Rdatasets
// from which Fetch downloads the real data sets.
const RdatasetsCommit = "1dcc2bf5f955cc1224a3e1307256e1fe86b68dae"

// DefaultBaseURL is the directory URL Fetch downloads from when
// FetchOptions.BaseURL is empty: the R package MASS's data sets in the
// Rdatasets repository at RdatasetsCommit.
const DefaultBaseURL = "https://raw.githubusercontent.com/vincentarelbundock/Rdatasets/" + RdatasetsCommit + "/csv/MASS"

// file describes one normalised data file and, if it can be downloaded,
// its upstream copy.
type file struct {
	name    string   // file name in the data directory
	columns []string // its header
	rows    int      // its number of data rows
	sha256  string   // hex SHA-256 of the normalised file

	// The upstream copy in Rdatasets; upstream is "" if the file cannot be
	// downloaded. The upstream file has a leading "rownames" column (1, 2,
	// …) and the columns upstreamColumns, which map one to one onto
	// columns.
	upstream        string
	upstreamColumns []string
	upstreamSHA256  string
	// decimals[j], if positive, is the fixed number of decimals of column
	// j in the normalised file: Ripley's original files, which the
	// normalised ones copy, have a fixed number of decimals, while R writes
	// the shortest of 15 or 17 significant digits that gives the double
	// back (0.496562 for 0.49656200, 0.14790267000000001 for 0.14790267).
	decimals []int
}

// mirror is a file whose upstream copy in Rdatasets has the same
// columns; decimals as for file.
func mirror(name string, columns []string, rows int, sha256, upstream, upstreamSHA256 string, decimals ...int) file {
	return file{name: name, columns: columns, rows: rows, sha256: sha256,
		upstream: upstream, upstreamColumns: columns, upstreamSHA256: upstreamSHA256, decimals: decimals}
}

// dataSet is a named group of files fetched and ensured together.
type dataSet struct {
	name  string
	files []file
}

var (
	ripleyColumns = []string{"xs", "ys", "yc"}
	pimaColumns   = []string{"npreg", "glu", "bp", "skin", "bmi", "ped", "age", "type"}
	bostonColumns = []string{"CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT", "MEDV"}
)

// The checksums are those of data/README.md (and of the reference data).
var (
	ripleyTrainFile = mirror("ripley_train.csv", ripleyColumns, 250, "e4248ccafe42aa32acfaa8019924ea8dd14a2b294e55525edde9ac2b47cd3910", "synth.tr.csv", "a0360161d301dbffab7bfb5d19b4904b1d6dd501c2d1937b0fec3a0bfe1b7c1e", 8, 8, 0)
	ripleyTestFile  = mirror("ripley_test.csv", ripleyColumns, 1000, "265dce2e2afe65cf8a6e941266848ac24b084e67b900ff4d9e098aaa90dd91af", "synth.te.csv", "23341cd6a168ae07f3bb7de0ee5dbd085a022b7482f53f2a4dde2691d083b4ed", 9, 9, 0)
	pimaTrainFile   = mirror("pima_train.csv", pimaColumns, 200, "dd253952a163c8395a872f139e45dc282bb71e3047fed1c9d174b6870813702b", "Pima.tr.csv", "78e6284c75bf81eaae97815f7d0dd2992a119629ec6622de7918258311c32a7a")
	pimaTestFile    = mirror("pima_test.csv", pimaColumns, 332, "5df53a692ed8a9052afd618401027691a565073b9044e72903796967329e5f8e", "Pima.te.csv", "b00bf6540cce6b6bc44ea65a149da3142b2039b37980dbcdf18d3750fc9db032")
	bostonFile      = file{
		name: "boston.csv", columns: bostonColumns, rows: 506,
		sha256:          "324fbb4e5e25f9573d1116252393c100938544dd52994de5e23dde15afa22621",
		upstream:        "Boston.csv",
		upstreamColumns: []string{"crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax", "ptratio", "black", "lstat", "medv"},
		upstreamSHA256:  "654ae93c04416defb2b3752951a7f4357d5951c84c02371b80b48a4492337f86",
	}
	sinc100File       = file{name: "sinc_N100_25sets.csv", columns: []string{"set", "x", "t"}, rows: 2500, sha256: "731acb0d24ab410d7e48f2472c69a80a099ccbac1250f9a6d182d17c5ef02b26"}
	sinc50File        = file{name: "sinc_N50_25sets.csv", columns: []string{"set", "x", "t"}, rows: 1250, sha256: "ece03fc2d58b2e1678b25303c40b0990e79a7c63699e74b171acf606b4d99350"}
	ripleySubsetsFile = file{name: "ripley_subsets100.csv", columns: []string{"subset", "row"}, rows: 1000, sha256: "f13504bc7c988898d57d9847cb97e25203a2ca52636a099ecae09144441b8005"}
	bostonSplitsFile  = file{name: "boston_splits.csv", columns: []string{"split", "row"}, rows: 250, sha256: "3fa8138400e1311d7a57323fbf3df5b26c39fc3f8cf6f168826ea13814d140b8"}
)

// The real-world splits (data/README.md): fixed 70/30
// train/test splits of scikit-learn's copies; the target is the last
// column. No loader reads them, so their headers are not checked (columns
// is nil); read them with LoadCSV.
var (
	irisFiles = []file{
		{name: "realworld/iris_train.csv", rows: 105, sha256: "66688c37648cef737ad48162c5cde2fb844f00e39a2c8fc4429bd9bdd49ce898"},
		{name: "realworld/iris_test.csv", rows: 45, sha256: "8cf5690257fde46e57f1e7eafb5a53d7b969695b28e4fbaf1ae448a19d1bdc58"},
	}
	wineFiles = []file{
		{name: "realworld/wine_train.csv", rows: 124, sha256: "6222ae6ad8e3ae51e977cd513f5aeb741f1e89f6625c2a315894bc56ba72e5a9"},
		{name: "realworld/wine_test.csv", rows: 54, sha256: "499505a476a407c790168b0deca7604ea9ab01cac2f334ecd114f467f6e70bae"},
	}
	digitsFiles = []file{
		{name: "realworld/digits_train.csv", rows: 1257, sha256: "b0f0c955d35fcc6dee95beefd62a08890152c6f7a7c22e94199b07f939671ac4"},
		{name: "realworld/digits_test.csv", rows: 540, sha256: "f676d9f537cc78159d1e0a1eb8d5b36a47b5382e70c60c29569f987fcab36451"},
	}
)

// catalog lists the data sets in the order Names gives.
var catalog = []dataSet{
	{"ripley", []file{ripleyTrainFile, ripleyTestFile}},
	{"pima", []file{pimaTrainFile, pimaTestFile}},
	{"boston", []file{bostonFile}},
	{"sinc", []file{sinc100File, sinc50File}},
	{"ripley-subsets", []file{ripleySubsetsFile}},
	{"boston-splits", []file{bostonSplitsFile}},
	{"iris", irisFiles},
	{"wine", wineFiles},
	{"digits", digitsFiles},
}

// Names returns the names of the data sets known to Fetch, Ensure and
// Files, all of them embedded in this package: "ripley", "pima" and
// "boston", which Fetch can also download; "sinc", "ripley-subsets" and
// "boston-splits", which were generated once and are fixed; and "iris",
// "wine" and "digits", fixed train/test splits of scikit-learn's copies
// (files realworld/NAME_train.csv and realworld/NAME_test.csv).
func Names() []string {
	n := make([]string, len(catalog))
	for i, s := range catalog {
		n[i] = s.name
	}
	return n
}

// Files returns the names of the files of the named data set in the data
// directory ("/"-separated, as in "realworld/iris_train.csv"), or an error
// for an unknown name.
func Files(name string) ([]string, error) {
	s, err := lookup(name)
	if err != nil {
		return nil, err
	}
	f := make([]string, len(s.files))
	for i, x := range s.files {
		f[i] = x.name
	}
	return f, nil
}

// Downloadable reports whether the named data set can be downloaded by
// Fetch. It is false for unknown names.
func Downloadable(name string) bool {
	s, err := lookup(name)
	return err == nil && s.files[0].upstream != ""
}

func lookup(name string) (dataSet, error) {
	for _, s := range catalog {
		if s.name == name {
			return s, nil
		}
	}
	return dataSet{}, fmt.Errorf("datasets: unknown data set %q; known are %s", name, strings.Join(Names(), ", "))
}
