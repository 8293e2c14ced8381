package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("textDocument/documentLink", method{call: (*Server).documentLink, async: true,
		caps: func(c *protocol.ServerCapabilities) { c.DocumentLinkProvider = &protocol.DocumentLinkOptions{} }})
}

// documentLink makes each reference to a whole file a link the editor
// underlines and opens on Ctrl+click: a Salt `source: salt://...`, a Puppet
// `puppet:///modules/...` or `template('mod/x.erb')`, a CFEngine input, a
// Chef include_policy path. Those are the links of the analysis whose
// targets are files and not declarations (definition answers the same
// places; a link to a declaration is what definition and hover are for).
func (s *Server) documentLink(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DocumentLinkParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	u := string(p.TextDocument.URI)
	out := []protocol.DocumentLink{}
	v := s.snap.viewFor(ctx, u, -1)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if v.snapshot == nil {
		return out, nil
	}
	seen := map[source.Span]bool{}
	for _, r := range v.results {
		for i := range r.Links {
			l := &r.Links[i]
			if l.At.URI != u || len(l.Nodes) > 0 || len(l.Files) != 1 || seen[l.At] {
				continue
			}
			f := l.Files[0]
			if f.Start != 0 || f.End != 0 || f.URI == "" || f.URI == u {
				continue // a place in a file, or the file itself: not a file to open
			}
			rng, ok := s.rangeIn(v, l.At)
			if !ok {
				continue
			}
			seen[l.At] = true
			target, tip := uri.URI(f.URI), "Open "+s.shownPath(f.URI)
			out = append(out, protocol.DocumentLink{Range: rng, Target: &target, Tooltip: &tip})
		}
	}
	return out, nil
}

// shownPath is a file's path as a tooltip shows it: relative to the
// workspace folder holding it, else absolute.
func (s *Server) shownPath(u string) string {
	p := source.URIToPath(u)
	for _, r := range s.ws.Roots() {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return p
}
