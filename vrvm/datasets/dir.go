package datasets

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvDir is the environment variable naming the data directory.
const EnvDir = "VRVM_DATA"

// Dir returns the data directory: $VRVM_DATA if set and non-empty, else the
// directory "vrvm" in the per-user cache directory (os.UserCacheDir, for
// example ~/.cache/vrvm on Linux). Dir does not create the directory; Fetch
// and Ensure do.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("datasets: no data directory: $%s is not set and there is no user cache directory (%v)", EnvDir, err)
	}
	return filepath.Join(c, "vrvm"), nil
}

// Path returns the path of the named file (for example "boston.csv") in
// the data directory Dir.
func Path(file string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, file), nil
}
