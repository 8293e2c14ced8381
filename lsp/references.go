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
	var links []*analysis.Link
	switch {
	case t.link != nil:
		links = t.result.LinksLike(t.link)
		for _, l := range links {
			nodes = append(nodes, l.Nodes...)
		}
	case t.node != nil:
		nodes = []*analysis.Node{t.node}
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
	for _, l := range links {
		for _, f := range l.Files {
			if !analysis.Place(f) {
				for _, o := range t.result.LinksToFile(f.URI) {
					add(o.At)
				}
				continue
			}
			// a place (a variable's definition): the links that lead there
			if p.Context.IncludeDeclaration {
				add(f)
			}
			for _, o := range t.result.LinksToPlace(f) {
				if o.At != f {
					add(o.At)
				}
			}
		}
	}
	return locs, nil
}
