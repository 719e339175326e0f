//go:build !unix

package vrvm

import "time"

// processCPU is not available here.
func processCPU() (time.Duration, bool) { return 0, false }
