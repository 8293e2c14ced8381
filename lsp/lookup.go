package lsp

import (
	"bytes"
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
	if best.link == nil {
		best = headAt(snap, f.Text, u, off)
	}
	return snap, best
}

// headAt finds the declaration whose head holds off: the words before its
// name on the name's line (`package` in `package { 'nginx':`, `class`
// in `class web {`), which users point at as much as at the name. The
// head ends at the name and holds no separator of another statement.
func headAt(snap *snapshot, text []byte, u string, off int) target {
	var best target
	for _, r := range snap.results {
		for _, n := range r.Graph.Nodes {
			if n.Hidden || n.Decl.URI != u || off >= n.Decl.Start || n.Decl.Start > len(text) || off < 0 {
				continue
			}
			if best.node != nil && n.Decl.Start >= best.node.Decl.Start {
				continue
			}
			if bytes.ContainsAny(text[off:n.Decl.Start], "\n;}=,>\"'#") {
				continue
			}
			best = target{result: r, node: n}
		}
	}
	return best
}
