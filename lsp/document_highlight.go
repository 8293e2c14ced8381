package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("textDocument/documentHighlight", method{call: (*Server).documentHighlight, async: true,
		caps: func(c *protocol.ServerCapabilities) { c.DocumentHighlightProvider = protocol.Boolean(true) }})
}

// documentHighlight marks, in the current file, the declaration of what is
// under the cursor (as written) and every reference to it (as read): the
// requisites, arrows and metaparameters that point at one resource light
// up together.
func (s *Server) documentHighlight(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DocumentHighlightParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	t := s.at(ctx, p.TextDocumentPositionParams)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	u := string(p.TextDocument.URI)
	out := []protocol.DocumentHighlight{}
	seen := map[source.Span]bool{}
	add := func(sp source.Span, kind protocol.DocumentHighlightKind) {
		if sp.URI == u && !seen[sp] {
			seen[sp] = true
			if r, ok := s.rangeIn(t.v, sp); ok {
				out = append(out, protocol.DocumentHighlight{Range: r, Kind: kind})
			}
		}
	}
	var nodes []*analysis.Node
	switch {
	case t.link != nil:
		like := t.result.LinksLike(t.link)
		self := false // (the link is on a place it leads to: a variable's definition, written)
		for _, l := range like {
			self = self || slices.Contains(l.Files, t.link.At)
		}
		if !self {
			add(t.link.At, protocol.DocumentHighlightKindRead)
		}
		for _, l := range like {
			nodes = append(nodes, l.Nodes...)
			// a place the link leads to in this file (a variable's
			// definition) is written there, and read where links lead to it
			for _, f := range l.Files {
				if f.URI != u || !analysis.Place(f) {
					continue
				}
				add(f, protocol.DocumentHighlightKindWrite)
				for _, o := range t.result.LinksToPlace(f) {
					add(o.At, protocol.DocumentHighlightKindRead)
				}
			}
		}
	case t.node != nil:
		nodes = []*analysis.Node{t.node}
	}
	for _, n := range nodes {
		add(n.Decl, protocol.DocumentHighlightKindWrite)
		for _, l := range t.result.LinksTo(n) {
			add(l.At, protocol.DocumentHighlightKindRead)
		}
	}
	return out, nil
}
