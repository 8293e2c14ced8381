package lsp

import (
	"context"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// rewrites offers, on any relationship under the cursor, the system's
// ways of writing the same relationship elsewhere (Salt: `require` on one
// state <-> `require_in` on the other) as refactorings: the order does not
// change, so there is nothing to preview. Cycle quick fixes already offer
// the same rewrites of a cycle's edges; those titles are not repeated.
func (s *Server) rewrites(ctx context.Context, snap *snapshot, uri string, lo, hi int, taken map[string]bool) []codeAction {
	var out []codeAction
	for _, r := range snap.results {
		fixer, _ := s.systemNamed(r.System).(analysis.Fixer)
		if fixer == nil {
			continue
		}
		for _, e := range r.Graph.Edges {
			if e.At.URI != uri || e.At.End < lo || e.At.Start > hi || ctx.Err() != nil {
				continue
			}
			req := analysis.FixRequest{Result: r, File: s.file(uri), Workspace: s.ws}
			for _, fx := range fixer.RelationFixes(req, e) {
				if fx.Kind != "move" || taken[fx.Title] {
					continue
				}
				taken[fx.Title] = true
				data := &fixData{System: r.System, Fix: fx, Versions: map[string]int32{}}
				s.mu.Lock()
				for _, te := range fx.Edits {
					if v, ok := s.versions[te.At.URI]; ok {
						data.Versions[te.At.URI] = v
					}
				}
				s.mu.Unlock()
				out = append(out, codeAction{Title: fx.Title, Kind: "refactor.rewrite", Edit: s.fixEdit(ctx, data, false)})
			}
		}
	}
	return out
}
