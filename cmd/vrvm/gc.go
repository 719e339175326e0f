package main

import (
	"os"
	"runtime/debug"
)

// A fit on many rows keeps one large matrix for its whole length: the
// explicit design, N × P float64s for N rows and P centres (at most 5,000
// by default), 0.8 GB at 20,000 rows and 4 GB at 100,000. Under the
// garbage collector's default (GOGC=100) the heap grows to about twice
// what is live before a collection, so the temporaries of the solver's
// iterations doubled the peak memory of such fits. gcForDesign lowers the
// collector's target so that the garbage above the design stays near
// designHeadroom bytes; the design is noscan memory (float64s) and never
// copied, so the extra collections cost little. Measured (vrvm fit, a
// regression on 8 standard normal inputs, README's scale table): 20,000,
// 40,000 and 100,000 rows peaked at 1.79, 3.43 and 8.52 GB before and at
// 1.21, 2.26 and 5.34 GB after, with the same fits and CPU time to 5 %.

// designHeadroom is the garbage the collector lets grow above a large
// design before it collects.
const designHeadroom = 256 << 20

// minGCPercent is the lowest GOGC gcForDesign sets.
const minGCPercent = 10

// designCentres is the library's number of centres above 5,000 training
// rows (vrvm's Centres field; vrvm fit keeps the default).
const designCentres = 5000

// gcPercentFor returns the GOGC for a fit on n rows, and false if the
// default suits it: GOGC is set in the environment (env), or the design,
// 8·n·min(n, designCentres) bytes, would be below designHeadroom.
func gcPercentFor(n int, env string) (int, bool) {
	if env != "" {
		return 0, false
	}
	size := 8 * float64(n) * float64(min(n, designCentres))
	if size < designHeadroom {
		return 0, false
	}
	return max(minGCPercent, int(100*designHeadroom/size)), true
}

// gcForDesign sets the collector's target for a fit on n rows (see
// gcPercentFor) and returns the function that restores it.
func gcForDesign(n int) (restore func()) {
	p, ok := gcPercentFor(n, os.Getenv("GOGC"))
	if !ok {
		return func() {}
	}
	old := debug.SetGCPercent(p)
	return func() { debug.SetGCPercent(old) }
}
