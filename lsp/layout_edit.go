package lsp

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Edits that change only comments and blank lines change no syntax tree,
// only positions: a comment typed at the top of a 10,000-line manifest
// moves every diagnostic below it by a line and nothing else. The server
// publishes the last analysis's diagnostics of such a document at once,
// shifted through the edit, instead of making the user wait for an
// analysis. For systems whose results can move (analysis.Movable) the
// analysis is then not run at all (layout_cutoff.go); for the others it
// still runs and publishes again only what differs.

// layoutOnly reports whether the edit m of document u from old to cur
// changes only comment and blank lines, as the system that owns it says
// (its tokens, and its own judgement: analysis.LayoutOnlyBy).
func (s *Server) layoutOnly(u string, old, cur *source.File, m analysis.Shift) bool {
	tokens := func(f *source.File) []analysis.Token { return s.tokensOf(u, f) }
	if tokens(cur) == nil {
		return false
	}
	for _, sys := range s.owners(u, cur) {
		if _, ok := sys.(analysis.Tokenizer); ok { // the one tokensOf asks
			return analysis.LayoutOnlyBy(sys, tokens, old, cur, m)
		}
	}
	return false
}

// shiftedDiagnostics publishes, for each document in focus whose edit
// since the newest analysis of it changed only its layout, that
// analysis's diagnostics of the document moved through the edit.
func (sn *snapshotter) shiftedDiagnostics(focus []string) {
	for _, u := range focus {
		cur := sn.s.ws.Overlay(u)
		if cur == nil {
			continue
		}
		best := sn.newestWith(u)
		if best == nil || best.overlays[u] == cur {
			continue
		}
		old := best.overlays[u]
		m := newShift(u, old.Text, cur.Text)
		if !sn.s.layoutOnly(u, old, cur, m.Shift) {
			continue
		}
		moved := &analysis.Result{Files: []string{u}}
		line := func(uri string, off int) int {
			f := cur
			if uri != u {
				f = sn.s.file(uri)
			}
			if f == nil {
				return 0
			}
			l, _ := f.Line1Col1(off)
			return l
		}
		for _, r := range best.results {
			for _, d := range r.Diags {
				if d.At.URI != u {
					continue
				}
				var ok bool
				if d.At, ok = m.span(d.At); !ok {
					continue
				}
				if !analysis.ShiftWords(&d.Message, &d.Template, m.Shift, line) {
					continue // it names a line in the edit: the analysis will say
				}
				d.Related = append([]analysis.Related(nil), d.Related...)
				for i := range d.Related {
					if at, ok := m.span(d.Related[i].At); ok {
						d.Related[i].At = at
					}
				}
				moved.Diags = append(moved.Diags, d)
			}
		}
		sn.s.publishDiagnostics([]*analysis.Result{moved}, map[string]bool{u: true})
	}
}
