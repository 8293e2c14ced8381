package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("textDocument/prepareCallHierarchy", method{call: (*Server).prepareCallHierarchy, async: true,
		caps: func(c *protocol.ServerCapabilities) { c.CallHierarchyProvider = protocol.Boolean(true) }})
	register("callHierarchy/incomingCalls", method{call: (*Server).incomingCalls, async: true})
	register("callHierarchy/outgoingCalls", method{call: (*Server).outgoingCalls, async: true})
}

// The call hierarchy is the dependency tree: "incoming" lists what
// depends on the item (runs after it because of a relationship, or
// includes it), "outgoing" what the item waits for (or includes). Each
// entry's detail says why and where it runs, so a user can walk the tree of
// a service down to the package and the file it needs.

// hierarchyData finds an item's declaration again in a later snapshot.
type hierarchyData struct {
	Ref   string `json:"ref"`
	URI   string `json:"uri"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

func (s *Server) prepareCallHierarchy(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CallHierarchyPrepareParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	snap, t := s.atExact(ctx, p.TextDocumentPositionParams)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := []protocol.CallHierarchyItem{}
	if snap == nil {
		return out, nil
	}
	var nodes []*analysis.Node
	switch {
	case t.node != nil:
		nodes = []*analysis.Node{t.node}
	case t.link != nil:
		nodes = t.link.Nodes
	}
	for _, n := range nodes {
		if d := findDecl(snap.results, n.Ref, n.Decl); d != nil {
			out = append(out, s.hierarchyItem(d.ref, d.at, d.placedInRun(), ""))
		}
	}
	return out, nil
}

func (s *Server) hierarchyItem(ref string, at source.Span, p placed, why string) protocol.CallHierarchyItem {
	full := p.n.Full
	if full.IsZero() || full.URI != at.URI || !full.Contains(at.Start) {
		full = at
	}
	var detail []string
	if why != "" {
		detail = append(detail, why)
	}
	if pos := position(p); pos != "" {
		detail = append(detail, pos)
	}
	item := protocol.CallHierarchyItem{
		Name:           nonEmpty(ref),
		Kind:           symbolKind(p.n),
		URI:            uri.URI(at.URI),
		Range:          s.toRange(full),
		SelectionRange: s.toRange(at),
	}
	if b, err := json.Marshal(hierarchyData{Ref: ref, URI: at.URI, Start: at.Start, End: at.End}); err == nil {
		item.Data = protocol.LSPAny(b)
	}
	if len(detail) > 0 {
		d := strings.Join(detail, " · ")
		item.Detail = &d
	}
	return item
}

// itemDecl resolves the item a client sends back.
func (s *Server) itemDecl(ctx context.Context, item protocol.CallHierarchyItem) *decl {
	var d hierarchyData
	if json.Unmarshal(item.Data, &d) != nil || d.URI == "" {
		return nil
	}
	snap := s.snap.latestFor(ctx, d.URI)
	if snap == nil {
		return nil
	}
	return findDecl(snap.results, d.Ref, source.Span{URI: d.URI, Start: d.Start, End: d.End})
}

// ranges keeps the edges' words that lie in the file of `in`; LSP
// places call ranges in one document. Edges written elsewhere (a chain in
// another manifest) are shown by the declaration itself.
func (s *Server) ranges(es []*analysis.Edge, in source.Span) []protocol.Range {
	var out []protocol.Range
	seen := map[source.Span]bool{}
	for _, e := range es {
		if e.At.URI == in.URI && !seen[e.At] {
			seen[e.At] = true
			out = append(out, s.toRange(e.At))
		}
	}
	if len(out) == 0 {
		out = append(out, s.toRange(in))
	}
	return out
}

func (s *Server) incomingCalls(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CallHierarchyIncomingCallsParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	out := []protocol.CallHierarchyIncomingCall{}
	d := s.itemDecl(ctx, p.Item)
	if d == nil {
		return out, ctx.Err()
	}
	for _, nb := range d.related(dependents) {
		out = append(out, protocol.CallHierarchyIncomingCall{
			From:       s.hierarchyItem(nb.ref, nb.at, nb.node, reasons(nb.edges)),
			FromRanges: s.ranges(nb.edges, nb.at),
		})
	}
	return out, nil
}

func (s *Server) outgoingCalls(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CallHierarchyOutgoingCallsParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	out := []protocol.CallHierarchyOutgoingCall{}
	d := s.itemDecl(ctx, p.Item)
	if d == nil {
		return out, ctx.Err()
	}
	for _, nb := range d.related(waits) {
		out = append(out, protocol.CallHierarchyOutgoingCall{
			To:         s.hierarchyItem(nb.ref, nb.at, nb.node, reasons(nb.edges)),
			FromRanges: s.ranges(nb.edges, d.at),
		})
	}
	return out, nil
}
