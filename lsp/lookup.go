package lsp

import (
	"bytes"
	"context"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// target is what sits under the cursor: a declaration, a reference, or
// nothing.
type target struct {
	v      view // the analysis it was found in
	result *analysis.Result
	node   *analysis.Node // the declaration under the cursor
	// link: the reference under the cursor; with node, one written in
	// the declaration's words (a variable in a title: inWords), which
	// hover, definition, references and highlights answer about
	link *analysis.Link
	// onward: a link under the cursor inside the declaration to
	// something else (a Chef run-list entry is a declaration and leads to
	// its recipe's file; a CFEngine methods promise without usebundle
	// names the bundle it calls): definition goes there, not to the
	// declaration itself
	onward *analysis.Link
	// edges: the relationships made at the cursor (a chaining arrow),
	// when it is on no declaration and no reference
	edges []*analysis.Edge
}

// at finds what is at the position, from the newest analysis that can
// answer without waiting (viewFor): the target's spans belong to t.v and
// are mapped to the current text with s.rangeIn / s.whereIn.
// Declarations win over links when both cover the position (a Puppet
// resource title is both a declaration and its own namevar).
func (s *Server) at(ctx context.Context, p protocol.TextDocumentPositionParams) target {
	u := string(p.TextDocument.URI)
	f, off := s.offset(u, p.Position)
	if f == nil {
		off = -1
	}
	return s.lookup(s.snap.viewFor(ctx, u, off), u, f, off)
}

// atExact is at from an analysis of the current text, for requests whose
// answers edit it (rename) or name what is there now.
func (s *Server) atExact(ctx context.Context, p protocol.TextDocumentPositionParams) (*snapshot, target) {
	u := string(p.TextDocument.URI)
	snap := s.snap.latestFor(ctx, u)
	f, off := s.offset(u, p.Position)
	t := s.lookup(view{snapshot: snap}, u, f, off)
	return snap, t
}

func (s *Server) lookup(v view, u string, f *source.File, off int) target {
	if v.snapshot == nil || f == nil {
		return target{v: v}
	}
	text := f.Text
	if v.m != nil {
		var ok bool
		if off, ok = v.m.toOld(off); !ok {
			return target{v: v}
		}
		text = v.overlays[u].Text
	}
	snap := v.snapshot
	best := target{v: v}
	bestLen := -1
	for _, r := range snap.results {
		if ns := r.NodesAt(u, off); len(ns) > 0 {
			n := ns[0]
			if l := n.Decl.End - n.Decl.Start; bestLen < 0 || l < bestLen || best.node == nil {
				best, bestLen = target{v: v, result: r, node: n}, l
			}
		}
	}
	if best.node != nil {
		for _, l := range best.result.LinksAt(u, off) {
			if inWords(l, best.node.Decl) {
				best.link = l // (handlers that read references take it first)
				return best
			}
		}
		for _, l := range best.result.LinksAt(u, off) {
			if l.At.Start >= best.node.Decl.Start && l.At.End <= best.node.Decl.End && leadsAway(l, best.node) {
				best.onward = l
				break
			}
		}
		return best
	}
	for _, r := range snap.results {
		if ls := r.LinksAt(u, off); len(ls) > 0 {
			l := ls[0]
			if n := l.At.End - l.At.Start; bestLen < 0 || n < bestLen {
				best, bestLen = target{v: v, result: r, link: l}, n
			}
		}
	}
	if best.link == nil {
		for _, r := range snap.results {
			if es := r.EdgesAt(u, off); len(es) > 0 {
				return target{v: v, result: r, edges: es}
			}
		}
		best = headAt(snap, text, u, off)
		best.v = v
	}
	return best
}

// leadsAway: l names files, or declarations other than n.
func leadsAway(l *analysis.Link, n *analysis.Node) bool {
	if len(l.Files) > 0 {
		return true
	}
	for _, m := range l.Nodes {
		if m != n {
			return true
		}
	}
	return false
}

// inWords: l is written within the words of declaration decl and leads
// to places, not declarations or whole files (a Puppet variable in, or
// as, a resource's title): the cursor is on it, the head of the
// declaration (headAt) says what it declares.
func inWords(l *analysis.Link, decl source.Span) bool {
	if len(l.Nodes) > 0 || l.At.URI != decl.URI || l.At.Start < decl.Start || l.At.End > decl.End {
		return false
	}
	for _, f := range l.Files {
		if !analysis.Place(f) {
			return false
		}
	}
	return true
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
