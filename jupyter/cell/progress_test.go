package cell

import (
	"strings"
	"testing"
	"time"

	"github.com/vrvm/vrvm/vrvm"
)

func TestProgress(t *testing.T) {
	type call struct {
		data   map[string]any
		id     string
		update bool
	}
	var calls []call
	SetDisplay(func(data map[string]any, id string, update bool) error {
		calls = append(calls, call{data, id, update})
		return nil
	})
	t.Cleanup(func() { SetDisplay(nil) })

	b := NewProgress("fit <1>", 10)
	b.Every = time.Hour // only the first call draws
	for i := 1; i <= 5; i++ {
		if b.Monitor(vrvm.Progress{Iteration: i, Bound: -float64(i), Active: 3}) {
			t.Fatal("Monitor asked the fit to stop")
		}
	}
	b.Done("converged")
	if len(calls) != 2 {
		t.Fatalf("%d displays, want 2 (first iteration, Done)", len(calls))
	}
	if calls[0].update || !calls[1].update || calls[0].id == "" || calls[0].id != calls[1].id {
		t.Errorf("want one display id, shown then updated: %+v", calls)
	}
	text, _ := calls[1].data["text/plain"].(string)
	html, _ := calls[1].data["text/html"].(string)
	if !strings.Contains(text, "iteration 5") || !strings.Contains(text, "converged") {
		t.Errorf("final text %q", text)
	}
	if !strings.Contains(html, "fit &lt;1&gt;") || strings.Contains(html, "<1>") || !strings.Contains(html, "100%") {
		t.Errorf("final HTML not escaped or not full: %q", html)
	}
	if b.Updates() != 1 {
		t.Errorf("Updates() = %d, want 1", b.Updates())
	}

	// Every = 0 means DefaultProgressEvery; another bar gets another id.
	calls = nil
	b2 := NewProgress("second", 0)
	b2.Monitor(vrvm.Progress{Iteration: 1})
	b2.Monitor(vrvm.Progress{Iteration: 2})
	if len(calls) != 1 || calls[0].id == "" {
		t.Fatalf("second bar: %+v", calls)
	}
	time.Sleep(DefaultProgressEvery + 10*time.Millisecond)
	b2.Monitor(vrvm.Progress{Iteration: 3})
	if len(calls) != 2 || !calls[1].update {
		t.Errorf("no update after DefaultProgressEvery: %+v", calls)
	}
}
