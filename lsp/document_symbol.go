package lsp

import (
	"strconv"

	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

func init() {
	register("textDocument/documentSymbol", method{call: (*Server).documentSymbol, async: true})
}

// documentSymbol gives the outline: containers (classes, defines, nodes,
// bundles, policies) with what they hold, each named in the system's own
// notation and detailed with its execution position.
func (s *Server) documentSymbol(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DocumentSymbolParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	snap := s.snap.latestFor(ctx, string(p.TextDocument.URI))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := protocol.DocumentSymbolSlice{}
	if snap == nil {
		return out, nil
	}
	u := string(p.TextDocument.URI)
	for _, r := range snap.results {
		for _, sym := range r.Symbols(u) {
			out = append(out, s.toSymbol(r, sym))
		}
	}
	return out, nil
}

func (s *Server) toSymbol(r *analysis.Result, sym *analysis.Symbol) protocol.DocumentSymbol {
	n := sym.Node
	full := n.Full
	if full.IsZero() {
		full = n.Decl
	}
	sel := s.toRange(n.Decl)
	rng := s.toRange(full)
	// The selection range must lie inside the full range.
	if !full.Contains(n.Decl.Start) || n.Decl.URI != full.URI {
		rng = sel
	}
	ds := protocol.DocumentSymbol{
		Name:           nonEmpty(r.Show(n.Ref)),
		Kind:           symbolKind(n),
		Range:          rng,
		SelectionRange: sel,
	}
	if ps := r.Positions(n); len(ps) > 0 {
		d := n.Kind + " · runs " + analysis.Ordinal(ps[0].Index+1) + " of " + strconv.Itoa(len(ps[0].Run.Steps))
		ds.Detail = &d
	} else if n.Kind != "" {
		d := n.Kind
		ds.Detail = &d
	}
	for _, c := range sym.Children {
		ds.Children = append(ds.Children, s.toSymbol(r, c))
	}
	return ds
}

func nonEmpty(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}

// symbolKind maps the neutral node shape to an outline icon; the kind word
// stays in the detail.
func symbolKind(n *analysis.Node) protocol.SymbolKind {
	if n.Container {
		return protocol.SymbolKindClass
	}
	return protocol.SymbolKindEvent
}
