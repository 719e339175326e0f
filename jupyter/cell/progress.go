package cell

import (
	"fmt"
	"html"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vrvm/vrvm/vrvm"
)

// DisplayFunc publishes a MIME bundle (it must hold "text/plain") to the
// running cell's output: as a new output tagged with display id id when
// update is false, or, when update is true, in place of the output that
// carries id (Jupyter's update_display_data).
type DisplayFunc func(data map[string]any, id string, update bool) error

var (
	displayMu sync.Mutex
	display   DisplayFunc
	displayN  atomic.Int64
)

// SetDisplay installs the function that publishes to the running cell. The
// kernel sets it for each cell and clears it (nil) when the cell ends;
// without it (outside the kernel) a Progress prints plain text lines to
// standard output instead.
func SetDisplay(f DisplayFunc) {
	displayMu.Lock()
	defer displayMu.Unlock()
	display = f
}

func currentDisplay() DisplayFunc {
	displayMu.Lock()
	defer displayMu.Unlock()
	return display
}

// DefaultProgressEvery is how often, at most, a Progress redraws.
const DefaultProgressEvery = 200 * time.Millisecond

// Progress is a progress display for a long fit that updates in place, as
// tqdm's notebook bar does: its Monitor method, set as an estimator's
// Monitor, publishes one output when first called and replaces it at most
// every Every with the iteration, the lower bound, its relative change and
// the number of active basis functions; Done draws the final state.
//
//	bar := cell.NewProgress("sinc fit", 0)
//	m := &vrvm.Regressor{Kernel: vrvm.Gaussian{Width: 3}, Monitor: bar.Monitor}
//	err := m.FitContext(cell.Context(), x, t)
//	bar.Done(m.Status().String())
//
// The display renders as HTML with a plain-text fallback. Monitor never
// asks the fit to stop; Kernel → Interrupt stops it through Context.
type Progress struct {
	Label string
	// MaxIter, if positive, is the iteration count of a full bar (the
	// estimator's MaxIter); otherwise the bar shows no fraction.
	MaxIter int
	// Every is the least time between two redraws; zero means
	// DefaultProgressEvery.
	Every time.Duration

	id      string
	start   time.Time
	last    time.Time
	shown   bool
	current vrvm.Progress
	updates int
}

// NewProgress returns a Progress with the given label and full-bar
// iteration count (0 for none).
func NewProgress(label string, maxIter int) *Progress {
	return &Progress{Label: label, MaxIter: maxIter}
}

// Monitor records p and redraws the display if Every has passed since the
// last redraw. It returns false: the fit goes on.
func (b *Progress) Monitor(p vrvm.Progress) bool {
	now := time.Now()
	if b.start.IsZero() {
		b.start = now
	}
	b.current = p
	every := b.Every
	if every <= 0 {
		every = DefaultProgressEvery
	}
	if !b.shown || now.Sub(b.last) >= every {
		b.draw("")
	}
	return false
}

// Done redraws the display with the last iteration seen and the final
// status (for example m.Status().String()).
func (b *Progress) Done(status string) {
	if b.start.IsZero() {
		b.start = time.Now()
	}
	b.draw(status)
}

// Updates returns how many times the display was redrawn in place.
func (b *Progress) Updates() int { return b.updates }

func (b *Progress) draw(status string) {
	b.last = time.Now()
	elapsed := b.last.Sub(b.start).Seconds()
	p := b.current
	text := fmt.Sprintf("%s: iteration %d, bound %.6g, change %.2g, %d active, %.1f s", b.Label, p.Iteration, p.Bound, p.Change, p.Active, elapsed)
	if status != "" {
		text += " — " + status
	}
	frac := -1.0
	if b.MaxIter > 0 {
		frac = min(1, float64(p.Iteration)/float64(b.MaxIter))
	}
	if status != "" {
		frac = 1
	}
	f := currentDisplay()
	if f == nil {
		fmt.Println(text)
		return
	}
	if b.id == "" {
		b.id = fmt.Sprintf("vrvm-progress-%d-%d", time.Now().UnixNano(), displayN.Add(1))
	}
	data := map[string]any{"text/plain": text, "text/html": progressHTML(b.Label, text, frac)}
	update := b.shown
	if err := f(data, b.id, update); err == nil {
		if update {
			b.updates++
		}
		b.shown = true
	}
}

// progressHTML draws a bar of 30 cells, filled to frac (empty when
// frac < 0), and the text, without scripts or styles, so that
// it renders the same in trusted and untrusted notebooks.
func progressHTML(label, text string, frac float64) string {
	const width = 30
	var bar string
	if frac >= 0 {
		n := int(frac*width + 0.5)
		bar = strings.Repeat("█", n) + strings.Repeat("░", width-n)
		bar += fmt.Sprintf(" %3.0f%%", 100*frac)
	} else {
		bar = strings.Repeat("░", width)
	}
	return fmt.Sprintf("<div class=\"vrvm-progress\" title=\"%s\"><code>%s</code> %s</div>", html.EscapeString(label), bar, html.EscapeString(text))
}
