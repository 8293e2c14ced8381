package lsp

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Early cutoff: a comment typed into a class that three hundred runs of
// a control repository include changes none of their catalogs, only
// where things are. When every open document that changed since a
// system's last analysis changed only its layout (comment and blank
// lines, layoutOnly) or code that changes nothing the system computes but
// places (as the result itself judges: analysis.Result.Follow), the
// system's last result is moved through those edits (analysis.ShiftResult)
// instead of analysed again: milliseconds
// instead of seconds of CPU, and the same answers a fresh analysis gives
// (TestLayoutEditsMoveResults holds each system to that).

// readState is what a system's last analysis read: the open documents
// (by URI; immutable texts) and the generation of everything else.
type readState struct {
	overlays map[string]*source.File
	gen      uint64
}

// layoutCutoff returns sys's last result moved through the layout-only
// edits of the open documents (now) since it was made, or false when sys
// must be analysed again: it cannot move its results, something besides
// open documents changed (gen), a document was opened or closed, or an
// edit touched code.
func (s *Server) layoutCutoff(sys analysis.System, prev *analysis.Result, had bool, gen uint64, now map[string]*source.File) (*analysis.Result, bool) {
	if _, ok := sys.(analysis.Movable); !ok || !had || prev == nil || prev.Partial {
		return nil, false
	}
	s.mu.Lock()
	read, ok := s.lastRead[sys]
	s.mu.Unlock()
	if !ok || read.gen != gen || len(read.overlays) != len(now) {
		return nil, false
	}
	closed := map[string]*source.File{} // a lookup stats the file: once per move
	line := func(uri string, off int) int {
		f := now[uri]
		if f == nil {
			var ok bool
			if f, ok = closed[uri]; !ok {
				f = analysis.FileOf(s.ws, uri) // not open: unchanged since (gen)
				closed[uri] = f
			}
		}
		if f == nil {
			return 0
		}
		l, _ := f.Line1Col1(off)
		return l
	}
	r := prev
	for uri, cur := range now {
		old := read.overlays[uri]
		if old == cur {
			continue
		}
		if old == nil {
			return nil, false
		}
		m := analysis.NewShift(uri, old.Text, cur.Text)
		switch {
		case s.layoutOnly(uri, old, cur, m):
			r, ok = analysis.ShiftResult(r, m, line)
		case sys.Owns(cur.Path, func() []byte { return head(cur.Text) }):
			r, ok = r.FollowEdit(old, cur, m, line)
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	return r, r != prev
}

// sameOverlays reports whether the open documents are still the texts in
// now: an edit changes the overlay before it cancels the analysis running
// (touch), so an analysis can end, unaware, after reading the new text.
func sameOverlays(ws *source.Workspace, now map[string]*source.File) bool {
	cur := ws.Overlays()
	if len(cur) != len(now) {
		return false
	}
	for _, f := range cur {
		if now[f.URI] != f {
			return false
		}
	}
	return true
}
