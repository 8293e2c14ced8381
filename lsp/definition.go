package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() { register("textDocument/definition", method{call: (*Server).definition, async: true}) }

// definition jumps from a reference to every declaration it names (all
// matches of a glob, each title of a multi-title reference) and to the
// files it includes. On a declaration it answers the declaration itself,
// so editors fall back to showing its references, unless the declaration
// also names something else (a Chef run-list entry, its recipe; a
// CFEngine methods promise without usebundle, its bundle): then that.
func (s *Server) definition(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DefinitionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	t := s.at(ctx, p.TextDocumentPositionParams)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	locs := protocol.LocationSlice{}
	add := func(sp source.Span) {
		if r, ok := s.rangeIn(t.v, sp); ok {
			locs = append(locs, protocol.Location{URI: uri.URI(sp.URI), Range: r})
		}
	}
	switch {
	case t.link != nil:
		for _, n := range t.link.Nodes {
			add(n.Decl)
		}
		for _, f := range t.link.Files {
			add(f)
		}
	case t.onward != nil:
		for _, n := range t.onward.Nodes {
			add(n.Decl)
		}
		for _, f := range t.onward.Files {
			add(f)
		}
	case t.node != nil:
		add(t.node.Decl)
	}
	return locs, nil
}
