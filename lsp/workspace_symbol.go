package lsp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("workspace/symbol", method{call: (*Server).workspaceSymbol, async: true,
		caps: func(c *protocol.ServerCapabilities) { c.WorkspaceSymbolProvider = protocol.Boolean(true) }})
}

// maxWorkspaceSymbols bounds one answer: a control repository declares
// hundreds of thousands of resources, and a picker shows a screenful.
const maxWorkspaceSymbols = 500

// workspaceSymbol finds every declared resource, class, state, bundle,
// promise and policy whose reference matches the query: case-insensitive,
// by prefix, then substring, then as a subsequence ("pkgngx" finds
// Package[nginx]). A declaration evaluated in many runs is listed once.
func (s *Server) workspaceSymbol(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	snap := s.snap.latest(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := []protocol.SymbolInformation{}
	if snap == nil {
		return out, nil
	}
	q := strings.ToLower(strings.TrimSpace(p.Query))
	type hit struct {
		rank int
		sym  protocol.SymbolInformation
	}
	var hits []hit
	type key struct {
		ref string
		at  source.Span
	}
	seen := map[key]bool{}
	for _, r := range snap.results {
		for i, n := range r.Graph.Nodes {
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if n.Hidden || n.Decl.IsZero() || seen[key{n.Ref, n.Decl}] {
				continue
			}
			rank := matchRank(strings.ToLower(n.Ref), q)
			if rank < 0 {
				continue
			}
			seen[key{n.Ref, n.Decl}] = true
			si := protocol.SymbolInformation{
				BaseSymbolInformation: protocol.BaseSymbolInformation{Name: nonEmpty(r.Show(n.Ref)), Kind: symbolKind(n)},
				Location:              s.toLocation(n.Decl),
			}
			if n.Parent != nil && !n.Parent.Hidden {
				c := r.Show(n.Parent.Ref)
				si.ContainerName = &c
			}
			hits = append(hits, hit{rank, si})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].rank != hits[j].rank {
			return hits[i].rank < hits[j].rank
		}
		return hits[i].sym.Name < hits[j].sym.Name
	})
	for i, h := range hits {
		if i == maxWorkspaceSymbols {
			break
		}
		out = append(out, h.sym)
	}
	return out, nil
}

// matchRank says how well name matches the query: 0 the name or its title
// starts with it, 1 contains it, 2 holds its letters in order, -1 no match.
func matchRank(name, q string) int {
	if q == "" {
		return 1
	}
	title := name
	if i := strings.IndexAny(name, "[ "); i >= 0 {
		title = strings.TrimLeft(name[i+1:], "'\"")
	}
	switch {
	case strings.HasPrefix(name, q) || strings.HasPrefix(title, q):
		return 0
	case strings.Contains(name, q):
		return 1
	}
	j := 0
	for i := 0; i < len(name) && j < len(q); i++ {
		if name[i] == q[j] {
			j++
		}
	}
	if j == len(q) {
		return 2
	}
	return -1
}
