package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() { register("textDocument/references", method{call: (*Server).references, async: true}) }

// references lists every place that points at the declaration under the
// cursor (or at the targets of the reference under it): requisites,
// relationship metaparameters, arrows, handles, includes of the file.
func (s *Server) references(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.ReferenceParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	t := s.at(ctx, p.TextDocumentPositionParams)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var nodes []*analysis.Node
	switch {
	case t.node != nil:
		nodes = []*analysis.Node{t.node}
	case t.link != nil:
		nodes = t.link.Nodes
	}
	seen := map[source.Span]bool{}
	locs := protocol.LocationSlice{}
	add := func(sp source.Span) {
		if !seen[sp] {
			seen[sp] = true
			if r, ok := s.rangeIn(t.v, sp); ok {
				locs = append(locs, protocol.Location{URI: uri.URI(sp.URI), Range: r})
			}
		}
	}
	for _, n := range nodes {
		if p.Context.IncludeDeclaration {
			add(n.Decl)
		}
		for _, l := range t.result.LinksTo(n) {
			add(l.At)
		}
	}
	if t.link != nil {
		for _, f := range t.link.Files {
			for _, l := range t.result.LinksToFile(f.URI) {
				add(l.At)
			}
		}
	}
	return locs, nil
}
