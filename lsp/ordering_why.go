package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

func init() { register("ordering/why", method{call: (*Server).orderingWhy, async: true}) }

// The parameters are the declaration under the cursor (A: a
// TextDocumentPositionParams) and, in "other", another one named by its
// reference (B), as `ordering-lsp why` takes them.

type whyEdge struct {
	From     string            `json:"from"`
	To       string            `json:"to"`
	Reason   string            `json:"reason"`
	Location protocol.Location `json:"location"`
}

type whyAnswer struct {
	// Relation: "before" (A runs before B), "after", or "independent".
	Relation string    `json:"relation"`
	Summary  string    `json:"summary"`
	Path     []whyEdge `json:"path"`
}

// orderingWhy answers "why does this run before that": the shortest
// chain of relationships between the declaration under the cursor and
// another, each edge with its words and place, or that only the tool's
// default order places them.
func (s *Server) orderingWhy(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	var other struct {
		Other string `json:"other"`
	}
	if err := json.Unmarshal(raw, &other); err != nil {
		return nil, err
	}
	t, a, err := s.whySubject(ctx, p)
	if err != nil {
		return nil, err
	}
	r := t.result
	as := r.NodesByRef(a.Ref)
	bs := r.NodesByRef(other.Other)
	if len(bs) == 0 {
		return nil, fmt.Errorf("%s declares nothing called %s", r.System, other.Other)
	}
	w := r.Why(as, bs)
	ans := whyAnswer{Path: []whyEdge{}}
	switch {
	case w.Path == nil:
		ans.Relation = "independent"
		ans.Summary = fmt.Sprintf("No relationship orders %s and %s: only %s's default order places them.", a.Ref, bs[0].Ref, r.System)
	case w.Reversed:
		ans.Relation = "after"
		ans.Summary = fmt.Sprintf("%s runs after %s:", a.Ref, bs[0].Ref)
	default:
		ans.Relation = "before"
		ans.Summary = fmt.Sprintf("%s runs before %s:", a.Ref, bs[0].Ref)
	}
	for _, e := range w.Path {
		reason := e.Reason
		if reason == "" {
			reason = e.Kind.String()
		}
		ans.Path = append(ans.Path, whyEdge{From: visible(e.From).Ref, To: visible(e.To).Ref, Reason: reason, Location: s.toLocation(e.At)})
	}
	return ans, nil
}

// whySubject is what "why" asks about: the declaration under the cursor,
// or the first target of the reference there, in an analysis of the
// current text.
func (s *Server) whySubject(ctx context.Context, p protocol.TextDocumentPositionParams) (target, *analysis.Node, error) {
	_, t := s.atExact(ctx, p)
	if ctx.Err() != nil {
		return t, nil, ctx.Err()
	}
	switch {
	case t.node != nil:
		return t, t.node, nil
	case t.link != nil && len(t.link.Nodes) > 0:
		return t, t.link.Nodes[0], nil
	}
	return t, nil, fmt.Errorf("put the cursor on a declaration or a reference")
}
