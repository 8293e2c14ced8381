package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

func init() {
	register("ordering/whyCandidates", method{call: (*Server).orderingWhyCandidates, async: true})
}

// whyCandidate is one declaration the "Why does this run before…" picker
// offers, with how it relates to the one under the cursor.
type whyCandidate struct {
	Ref      string            `json:"ref"`
	Detail   string            `json:"detail"`
	Location protocol.Location `json:"location"`
}

type whyCandidates struct {
	// This is the declaration the question is about, as the picker
	// names it ("Why does Package[nginx] run before…").
	This       string         `json:"this"`
	Candidates []whyCandidate `json:"candidates"`
}

// maxWhyCandidates bounds the list: a hub's transitive closure can be a
// whole catalog, and the picker filters as the user types anyway.
const maxWhyCandidates = 200

// orderingWhyCandidates answers the picker that opens before the user
// types: what the declaration under the cursor is related to, nearest
// first (what it directly waits for and what directly waits for it, then
// what is further along the chains), then the other declarations of the
// file. An empty box gave the user nothing to pick and no idea what
// "this" was.
func (s *Server) orderingWhyCandidates(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	t, a, err := s.whySubject(ctx, p)
	if err != nil {
		return nil, err
	}
	a = visible(a)
	r := t.result
	out := whyCandidates{This: a.Ref, Candidates: []whyCandidate{}}
	seen := map[string]bool{a.Ref: true}
	add := func(n *analysis.Node, detail string) {
		if n.Hidden || seen[n.Ref] || len(out.Candidates) >= maxWhyCandidates {
			return
		}
		seen[n.Ref] = true
		out.Candidates = append(out.Candidates, whyCandidate{Ref: n.Ref, Detail: detail, Location: s.toLocation(n.Decl)})
	}
	// Breadth first both ways at once, so hop 1 on either side comes
	// before hop 2 on the other.
	type hop struct {
		n     *analysis.Node
		after bool // n runs after a (a successor)
	}
	frontier := []hop{{a, false}, {a, true}}
	visited := map[[2]any]bool{}
	for depth := 1; len(frontier) > 0 && len(out.Candidates) < maxWhyCandidates && ctx.Err() == nil; depth++ {
		var next []hop
		for _, h := range frontier {
			rel := r.Relations(h.n)
			ns := rel.Waits
			if h.after {
				ns = rel.Before
			}
			for _, x := range ns {
				k := [2]any{x.Node, h.after}
				if visited[k] || x.Node == a {
					continue
				}
				visited[k] = true
				next = append(next, hop{x.Node, h.after})
				how := "runs before it"
				if h.after {
					how = "runs after it"
				}
				if depth == 1 {
					add(x.Node, how+", directly ("+x.Edge.Reason+")")
				} else {
					add(x.Node, fmt.Sprintf("%s, through %d relationships", how, depth))
				}
			}
		}
		frontier = next
	}
	for _, n := range r.Graph.Nodes {
		if n.Decl.URI == a.Decl.URI {
			add(n, "same file")
		}
	}
	return out, nil
}
