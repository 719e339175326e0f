package datasets

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// embedded holds the project's copies of the data files, in the layout of
// the data directory (data/README.md gives their provenance and licences).
//
//go:embed data/*.csv data/realworld/*.csv
var embedded embed.FS

// embeddedName is the name the errors give a file read from the embedded
// copy.
func embeddedName(name string) string { return "embedded " + name }

// readEmbedded returns the embedded copy of the named data file.
func readEmbedded(name string) ([]byte, error) {
	b, err := embedded.ReadFile(path.Join("data", name))
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: no such data file, in the data directory or embedded: %w", name, fs.ErrNotExist)
	}
	return b, nil
}

// openData opens the named file of the data directory (name uses "/" as
// separator, as in "realworld/iris_train.csv") or, if the directory has no
// such file or there is no data directory, the embedded copy. It returns
// the name to give the file in errors: its path, or "embedded NAME".
func openData(name string) (io.ReadCloser, string, error) {
	if dir, err := Dir(); err == nil {
		p := filepath.Join(dir, filepath.FromSlash(name))
		f, err := os.Open(p)
		if err == nil {
			return f, p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Errorf("datasets: %w", err)
		}
	}
	f, err := embedded.Open(path.Join("data", name))
	if err != nil {
		return nil, "", fmt.Errorf("datasets: %s is neither in the data directory nor one of the embedded data files (%s): %w", name, embeddedList(), fs.ErrNotExist)
	}
	return f, embeddedName(name), nil
}

// embeddedList lists the names of the embedded data files.
func embeddedList() string {
	var names []string
	for _, set := range catalog {
		for _, f := range set.files {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, ", ")
}

// LoadCSV reads the named file of the data directory (as Path names it; for
// example "boston.csv" or "realworld/iris_train.csv") with ReadCSVOptions,
// or, when the data directory lacks it, the copy embedded in this package:
// every file of the data sets listed by Names is embedded, so LoadCSV, like
// the loaders, works with no data directory at all. Errors name the path
// read, or "embedded NAME" for an embedded copy; a name that is neither in
// the data directory nor embedded is an error wrapping fs.ErrNotExist.
func LoadCSV(name string, opt CSVOptions) (*Table, error) {
	rc, label, err := openData(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadCSVOptions(rc, label, opt)
}
