package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// target is what sits under the cursor: a declaration, a reference, or
// nothing.
type target struct {
	result *analysis.Result
	node   *analysis.Node // the declaration under the cursor
	link   *analysis.Link // the reference under the cursor
}

// at waits for the analysis of the current text and finds what is at the
// position. Declarations win over links when both cover the position
// (a Puppet resource title is both a declaration and its own namevar).
func (s *Server) at(ctx context.Context, p protocol.TextDocumentPositionParams) (*snapshot, target) {
	snap := s.snap.latestFor(ctx, string(p.TextDocument.URI))
	if snap == nil {
		return nil, target{}
	}
	u := string(p.TextDocument.URI)
	f, off := s.offset(u, p.Position)
	if f == nil {
		return snap, target{}
	}
	var best target
	bestLen := -1
	for _, r := range snap.results {
		if ns := r.NodesAt(u, off); len(ns) > 0 {
			n := ns[0]
			if l := n.Decl.End - n.Decl.Start; bestLen < 0 || l < bestLen || best.node == nil {
				best, bestLen = target{result: r, node: n}, l
			}
		}
	}
	if best.node != nil {
		return snap, best
	}
	for _, r := range snap.results {
		if ls := r.LinksAt(u, off); len(ls) > 0 {
			l := ls[0]
			if n := l.At.End - l.At.Start; bestLen < 0 || n < bestLen {
				best, bestLen = target{result: r, link: l}, n
			}
		}
	}
	return snap, best
}
