package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("textDocument/prepareRename", method{call: (*Server).prepareRename, async: true,
		caps: func(c *protocol.ServerCapabilities) {
			yes := true
			c.RenameProvider = &protocol.RenameOptions{PrepareProvider: &yes}
		}})
	register("textDocument/rename", method{call: (*Server).rename, async: true})
}

// Rename changes a declared name (a resource title, a Salt state ID, a
// CFEngine bundle, a class, a Chef policy) in its declaration and in every
// reference to it across the workspace, as one edit. The words to change
// in a reference are found by the system's Completer (what it would
// replace there), so the server needs no syntax. It refuses, saying
// where, when a name is computed: an interpolated title, a glob or a
// pattern that could not be followed.

// renamePlan is what a rename would change.
type renamePlan struct {
	old   string
	edits []source.Span // the words that hold the old name
}

func (s *Server) prepareRename(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.PrepareRenameParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	plan, at, err := s.planRename(ctx, p.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, nil
	}
	return map[string]any{"range": s.toRange(at), "placeholder": plan.old}, nil
}

func (s *Server) rename(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.RenameParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	name := p.NewName
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "'\"\n\r$*`") {
		return nil, fmt.Errorf("%q cannot be a name here: no quotes, $, * or line breaks", name)
	}
	plan, _, err := s.planRename(ctx, p.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, fmt.Errorf("nothing to rename here: put the cursor on a declaration or a reference")
	}
	changes := map[string][]textEdit{}
	for _, sp := range plan.edits {
		changes[sp.URI] = append(changes[sp.URI], textEdit{Range: s.toRange(sp), NewText: name})
	}
	return workspaceEdit{Changes: changes}, nil
}

// planRename finds what is under the cursor, the words of its name there
// (at), and every place to change.
func (s *Server) planRename(ctx context.Context, pos protocol.TextDocumentPositionParams) (*renamePlan, source.Span, error) {
	snap, t := s.atExact(ctx, pos)
	if ctx.Err() != nil {
		return nil, source.Span{}, ctx.Err()
	}
	if snap == nil {
		return nil, source.Span{}, nil
	}
	var targets []*analysis.Node
	switch {
	case t.node != nil:
		targets = []*analysis.Node{t.node}
	case t.link != nil && t.link.Gathers:
		return nil, source.Span{}, nil // (a metaparameter's name: its value's references are renamed)
	case t.link != nil && len(t.link.Nodes) == 1:
		targets = t.link.Nodes
	case t.link != nil && len(t.link.Nodes) > 1:
		return nil, source.Span{}, fmt.Errorf("this reference names %d declarations (a glob or a pattern): rename each declaration instead", len(t.link.Nodes))
	default:
		return nil, source.Span{}, nil
	}
	n := targets[0]
	decl, old, err := s.nameWords(n.Decl)
	if err != nil {
		return nil, source.Span{}, err
	}
	plan := &renamePlan{old: old, edits: []source.Span{decl}}
	at := decl
	seen := map[source.Span]bool{decl: true}
	// every reference to the declaration, from every run it is evaluated in
	for _, r := range snap.results {
		sys, _ := s.completerFor(snap, n.Decl.URI)
		for _, m := range r.Graph.Nodes {
			if m.Ref != n.Ref || m.Decl != n.Decl {
				continue
			}
			for _, l := range r.LinksTo(m) {
				if seen[l.At] {
					continue
				}
				seen[l.At] = true
				words, ok := s.referenceWords(r, sys, l.At, old)
				if !ok {
					return nil, source.Span{}, fmt.Errorf("the reference at %s names %s in a way that cannot be rewritten (computed, a glob or a pattern): rename by hand", s.where(l.At), old)
				}
				if words.IsZero() {
					continue // it names the target another way (a Salt name:, an alias)
				}
				plan.edits = append(plan.edits, words)
				if t.link != nil && t.link.At == l.At {
					at = words
				}
			}
		}
	}
	sort.Slice(plan.edits, func(i, j int) bool {
		a, b := plan.edits[i], plan.edits[j]
		if a.URI != b.URI {
			return a.URI < b.URI
		}
		return a.Start < b.Start
	})
	return plan, at, nil
}

// nameWords is a declaration's name without its quotes, refusing names
// that are computed.
func (s *Server) nameWords(at source.Span) (source.Span, string, error) {
	f := s.file(at.URI)
	if f == nil || at.Start < 0 || at.End > len(f.Text) || at.Start >= at.End {
		return source.Span{}, "", fmt.Errorf("the declaration's file cannot be read")
	}
	text := string(f.Text[at.Start:at.End])
	start, end := at.Start, at.End
	if len(text) >= 2 && (text[0] == '\'' || text[0] == '"') && text[len(text)-1] == text[0] {
		start, end, text = start+1, end-1, text[1:len(text)-1]
	}
	if text == "" || strings.ContainsAny(text, "$*{}[]\n'\",") {
		return source.Span{}, "", fmt.Errorf("%s is computed or holds several names: it cannot be renamed", string(f.Text[at.Start:at.End]))
	}
	return source.Span{URI: at.URI, Start: start, End: end}, text, nil
}

// referenceWords finds, inside a reference, the words that hold old: the
// whole reference when it is the name itself (a handle, an ID), else what
// the system would complete just before its end. ok is false for a
// reference that is computed; a zero span means the reference names the
// target by another name.
func (s *Server) referenceWords(r *analysis.Result, sys analysis.Completer, at source.Span, old string) (source.Span, bool) {
	f := s.file(at.URI)
	if f == nil || at.End > len(f.Text) || at.Start >= at.End {
		return source.Span{}, false
	}
	text := string(f.Text[at.Start:at.End])
	if sp, _, err := s.nameWords(at); err == nil && text != "" {
		if strings.Trim(text, `'"`) == old {
			return sp, true
		}
	}
	if sys != nil {
		req := analysis.CompletionRequest{Result: r, File: f, Workspace: s.ws}
		for off := at.End; off >= at.Start && off >= at.End-2; off-- {
			req.Offset = off
			if c := sys.Complete(req); c != nil && c.Replace.Start >= at.Start && c.Replace.Start < off {
				words := string(f.Text[c.Replace.Start:off])
				if words == old {
					return source.Span{URI: at.URI, Start: c.Replace.Start, End: off}, true
				}
				if strings.ContainsAny(words, "$*") {
					return source.Span{}, false
				}
				return source.Span{}, true
			}
		}
	}
	if strings.ContainsAny(text, "$*") {
		return source.Span{}, false
	}
	if !strings.Contains(text, old) {
		return source.Span{}, true
	}
	return source.Span{}, false
}
