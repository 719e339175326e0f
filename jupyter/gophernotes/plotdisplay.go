//go:build vrvmkernel

package main

import (
	"fmt"

	"github.com/cosmos72/gomacro/xreflect"
	"gonum.org/v1/plot"

	"github.com/vrvm/vrvm/vrvm/vrvmplot"
)

// renderResults is gophernotes' autoRenderResults, which renders a cell's
// value by its method set (PNG, HTML, SVG…, see gophernotes' display.go),
// with one type it does not know: a *plot.Plot of gonum/plot, which has no
// such method, renders as one image/png at vrvmplot's default size (as a
// vrvmplot.Figure of one panel), with its title as the text/plain form.
func (kernel *Kernel) renderResults(vals []interface{}, types []xreflect.Type) Data {
	if p, ok := onlyValue(vals).(*plot.Plot); ok && p != nil {
		if b := (&vrvmplot.Figure{Panels: []*plot.Plot{p}}).PNG(); b != nil {
			return Data{Data: MIMEMap{MIMETypePNG: b, MIMETypeText: plotText(p)}}
		}
	}
	return kernel.autoRenderResults(vals, types)
}

// onlyValue returns the only non-nil value of vals, or nil if there are
// none or several.
func onlyValue(vals []interface{}) interface{} {
	var only interface{}
	for _, v := range vals {
		if v == nil {
			continue
		}
		if only != nil {
			return nil
		}
		only = v
	}
	return only
}

// plotText is the text/plain form of a plot: its type and title.
func plotText(p *plot.Plot) string {
	if p.Title.Text == "" {
		return "<*plot.Plot>"
	}
	return fmt.Sprintf("<*plot.Plot %q>", p.Title.Text)
}
