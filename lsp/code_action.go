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
	register("textDocument/codeAction", method{call: (*Server).codeAction, async: true,
		caps: func(c *protocol.ServerCapabilities) {
			yes := true
			c.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, "refactor.rewrite"}, ResolveProvider: &yes}
		}})
}

// codeAction offers quick fixes for the problems in the range. For a
// missing target: "did you mean" the nearest declared names. The names come
// from the system's Completer asked at the end of the missing name, so the
// server needs no syntax and every system with completion gets the fix.
func (s *Server) codeAction(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	u := string(p.TextDocument.URI)
	out := []codeAction{}
	snap := s.snap.latestFor(ctx, u)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	f := s.file(u)
	if snap == nil || f == nil {
		return out, nil
	}
	_, lo := s.offset(u, p.Range.Start)
	_, hi := s.offset(u, p.Range.End)
	out = append(out, s.installActions(snap, f, lo, hi)...)
	sys, r := s.completerFor(snap, u)
	if sys == nil {
		return out, nil
	}
	s.mu.Lock()
	settings := s.settings
	s.mu.Unlock()
	for _, d := range r.Diags {
		if !(d.Unresolved || d.Code == "missing-target") || d.At.URI != u || d.At.End < lo || d.At.Start > hi {
			continue
		}
		for i, fix := range didYouMean(sys, analysis.CompletionRequest{Result: r, File: f, Workspace: s.ws, Settings: settings}, d.At) {
			out = append(out, codeAction{
				Title:       fix.title,
				Kind:        "quickfix",
				Diagnostics: []protocol.Diagnostic{s.toDiagnostic(d)},
				IsPreferred: i == 0,
				Edit:        &workspaceEdit{Changes: map[string][]textEdit{u: {{Range: s.toRange(fix.at), NewText: fix.text}}}},
			})
		}
		if dec, ok := s.systemNamed(r.System).(analysis.Declarer); ok {
			for _, fx := range dec.DeclareFixes(analysis.FixRequest{Result: r, File: f, Workspace: s.ws}, d) {
				we := &workspaceEdit{Changes: map[string][]textEdit{}}
				for _, te := range fx.Edits {
					we.Changes[te.At.URI] = append(we.Changes[te.At.URI], textEdit{Range: s.toRange(te.At), NewText: te.NewText})
				}
				out = append(out, codeAction{Title: fx.Title, Kind: "quickfix", Diagnostics: []protocol.Diagnostic{s.toDiagnostic(d)}, Edit: we})
			}
		}
	}
	out = append(out, s.cycleFixes(ctx, snap, u, lo, hi)...)
	taken := map[string]bool{}
	for _, a := range out {
		taken[a.Title] = true
	}
	if wantsRefactors(p.Context) {
		out = append(out, s.rewrites(ctx, snap, u, lo, hi, taken)...)
	}
	return out, nil
}

// wantsRefactors: the optional rewrites answer an explicit request (the
// Refactor menu's `only`, or Ctrl+. which is triggerKind Invoked; clients
// that do not say count as explicit), never the automatic request behind
// the lightbulb: a lightbulb means there is a problem or a fix here.
func wantsRefactors(c protocol.CodeActionContext) bool {
	for _, k := range c.Only {
		if k == "refactor" || strings.HasPrefix(string(k), "refactor.") {
			return true
		}
	}
	return len(c.Only) == 0 && c.TriggerKind != protocol.CodeActionTriggerKindAutomatic
}

type codeAction struct {
	Title       string                `json:"title"`
	Kind        string                `json:"kind"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics,omitempty"`
	IsPreferred bool                  `json:"isPreferred,omitempty"`
	Edit        *workspaceEdit        `json:"edit,omitempty"`
	Command     *command              `json:"command,omitempty"` // run after the edit, if any (execute_command.go)
	// Data comes back in codeAction/resolve, which fills Edit.
	Data *fixData `json:"data,omitempty"`
}

type workspaceEdit struct {
	Changes           map[string][]textEdit       `json:"changes,omitempty"`
	DocumentChanges   []documentEdit              `json:"documentChanges,omitempty"`
	ChangeAnnotations map[string]changeAnnotation `json:"changeAnnotations,omitempty"`
}

// documentEdit is a TextDocumentEdit whose edits carry a change
// annotation: the client shows the annotation (the order after the
// change) and asks before applying.
type documentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Edits []annotatedEdit `json:"edits"`
}

type annotatedEdit struct {
	Range        protocol.Range `json:"range"`
	NewText      string         `json:"newText"`
	AnnotationID string         `json:"annotationId,omitempty"`
}

type changeAnnotation struct {
	Label             string `json:"label"`
	Description       string `json:"description,omitempty"`
	NeedsConfirmation bool   `json:"needsConfirmation,omitempty"`
}

type fix struct {
	title string
	at    source.Span
	text  string
}

// didYouMean finds the name the missing target's words end with (asking
// the completer just inside the span's end: after a closing quote or
// bracket there is no name) and proposes the closest declared names, at
// most three, close enough to be a typo.
func didYouMean(sys analysis.Completer, req analysis.CompletionRequest, at source.Span) []fix {
	var c *analysis.Completion
	end := 0
	for off := at.End; off >= at.Start && off >= at.End-2; off-- {
		req.Offset = off
		if got := sys.Complete(req); got != nil && got.Replace.Start >= at.Start && got.Replace.Start < off {
			c, end = got, off
			break
		}
	}
	if c == nil {
		return nil
	}
	typed := string(req.File.Text[c.Replace.Start:end])
	type cand struct {
		item analysis.CompletionItem
		d    int
	}
	var cs []cand
	limit := max(2, len(typed)/2)
	for _, it := range c.Items {
		d := analysis.EditDistance(strings.ToLower(typed), strings.ToLower(it.Label))
		if d == 0 || d > limit {
			continue
		}
		cs = append(cs, cand{it, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []fix
	for i, x := range cs {
		if i == 3 {
			break
		}
		text := x.item.Insert
		if text == "" {
			text = x.item.Label
		}
		out = append(out, fix{
			title: fmt.Sprintf("Change to %s", x.item.Label),
			at:    source.Span{URI: at.URI, Start: c.Replace.Start, End: end},
			text:  text,
		})
	}
	return out
}
