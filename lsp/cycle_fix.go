package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// fixData travels with a relationship fix to codeAction/resolve: the
// edits, and what the preview needs to find the run again.
type fixData struct {
	System string       `json:"system"`
	Fix    analysis.Fix `json:"fix"`
	// Run and Entry name the run the problem is in; Code and Problem are
	// the diagnostic's (the same cycle has the same message).
	Run     string `json:"run"`
	Entry   string `json:"entry"`
	Code    string `json:"code"`
	Problem string `json:"problem"`
	// Versions are the open documents' versions the edits were made for.
	Versions map[string]int32 `json:"versions"`
}

// cycleFixes offers, for each cycle diagnostic in [lo, hi] of uri, the
// system's rewrites of every explicit edge of the cycle: remove it,
// reverse it, write it on the other side; on one of the cycle's other
// edges (its related information), that edge's rewrites. Edges with no
// words of their own (containment, autorequires, manifest order) get none.
//
// A title names the declaration whose words it edits and the
// relationship ("Notify[a]: Remove require => Notify['b']"): the same
// relationship written on two resources must not read the same.
func (s *Server) cycleFixes(ctx context.Context, snap *snapshot, uri string, lo, hi int) []codeAction {
	var out []codeAction
	for _, r := range snap.results {
		fixer, _ := s.systemNamed(r.System).(analysis.Fixer)
		if fixer == nil {
			continue
		}
		want := map[source.Span]*analysis.Diagnostic{}
		in := func(at source.Span) bool { return at.URI == uri && at.End >= lo && at.Start <= hi }
		for i := range r.Diags {
			d := &r.Diags[i]
			if !d.RelationFixable() {
				continue
			}
			if in(d.At) {
				if want[d.At] == nil {
					want[d.At] = d // the edge the diagnostic sits on
				}
				for _, rel := range d.Related {
					if want[rel.At] == nil {
						want[rel.At] = d
					}
				}
				continue
			}
			for _, rel := range d.Related {
				if in(rel.At) && want[rel.At] == nil {
					want[rel.At] = d // the cursor is on another edge of the loop
				}
			}
		}
		if len(want) == 0 {
			continue
		}
		seen := map[string]string{} // title -> its edits
		for _, e := range r.Graph.Edges {
			d := want[e.At]
			if d == nil || ctx.Err() != nil {
				continue
			}
			req := analysis.FixRequest{Result: r, File: s.file(e.At.URI), Workspace: s.ws}
			for _, fx := range fixer.RelationFixes(req, e) {
				fx.Title = s.fixTitle(r, e, fx)
				edits := fmt.Sprint(fx.Edits)
				if prev, ok := seen[fx.Title]; ok {
					if prev == edits {
						continue // the same fix, reached from another run's edge
					}
					if len(fx.Edits) > 0 {
						fx.Title += fmt.Sprintf(" (%s)", s.where(fx.Edits[0].At))
					}
				}
				seen[fx.Title] = edits
				data := &fixData{System: r.System, Fix: fx, Code: d.Code, Problem: d.Message, Versions: map[string]int32{}}
				if ps := r.Positions(e.From); len(ps) > 0 {
					data.Run, data.Entry = ps[0].Run.Name, ps[0].Run.Entry
				}
				s.mu.Lock()
				for _, te := range fx.Edits {
					if v, ok := s.versions[te.At.URI]; ok {
						data.Versions[te.At.URI] = v
					}
				}
				resolve := s.actionResolve
				s.mu.Unlock()
				a := codeAction{Title: fx.Title, Kind: "quickfix", Diagnostics: []protocol.Diagnostic{s.toDiagnostic(*d)}}
				if resolve {
					a.Data = data // the edit and its preview come in codeAction/resolve
				} else {
					a.Edit = s.fixEdit(ctx, data, false)
				}
				out = append(out, a)
			}
		}
	}
	return out
}

// fixTitle puts the declaration that holds the edge's words before the
// fix's title, unless the title names it already (an arrow names both
// ends; a move names the state it writes on).
func (s *Server) fixTitle(r *analysis.Result, e *analysis.Edge, fx analysis.Fix) string {
	if fx.Kind == "move" {
		return fx.Title
	}
	var holder *analysis.Node
	for _, n := range r.Graph.Nodes {
		if n.Hidden || n.Full.URI != e.At.URI || n.Full.Start > e.At.Start || n.Full.End < e.At.End {
			continue
		}
		if holder == nil || n.Full.End-n.Full.Start < holder.Full.End-holder.Full.Start {
			holder = n
		}
	}
	if holder == nil || strings.Contains(fx.Title, holder.Ref) {
		return fx.Title
	}
	name := holder.Ref
	if strings.Count(name, " ") >= 2 {
		// `pkg.installed nginx nginx`: the ID as written says it
		if f := s.file(holder.Decl.URI); f != nil && holder.Decl.End <= len(f.Text) {
			if w := strings.TrimSpace(string(f.Text[holder.Decl.Start:holder.Decl.End])); w != "" && !strings.Contains(w, "\n") {
				name = w
			}
		}
	}
	return name + ": " + fx.Title
}

func (s *Server) systemNamed(name string) analysis.System {
	for _, sys := range s.systems {
		if sys.Name() == name {
			return sys
		}
	}
	return nil
}

// fixEdit turns a fix into a workspace edit. With preview (and a client
// that shows change annotations), the edit carries the order the change
// produces as its annotation: shown when the user previews the fix (VS Code:
// Ctrl+Enter in the quick fix list). It does not need confirmation: VS Code
// shows such edits unticked in its Refactor Preview, so choosing the fix
// opened a preview whose Apply changed nothing until the user ticked it.
func (s *Server) fixEdit(ctx context.Context, data *fixData, preview bool) *workspaceEdit {
	s.mu.Lock()
	annotations := s.changeAnnotations
	s.mu.Unlock()
	if preview && annotations {
		if label, desc := s.previewOrder(ctx, data); label != "" {
			we := &workspaceEdit{ChangeAnnotations: map[string]changeAnnotation{
				"order": {Label: label, Description: desc},
			}}
			byURI := map[string]int{}
			for _, te := range data.Fix.Edits {
				i, ok := byURI[te.At.URI]
				if !ok {
					i = len(we.DocumentChanges)
					byURI[te.At.URI] = i
					var de documentEdit
					de.TextDocument.URI = te.At.URI
					if v, ok := data.Versions[te.At.URI]; ok {
						de.TextDocument.Version = &v
					}
					we.DocumentChanges = append(we.DocumentChanges, de)
				}
				we.DocumentChanges[i].Edits = append(we.DocumentChanges[i].Edits, annotatedEdit{Range: s.toRange(te.At), NewText: te.NewText, AnnotationID: "order"})
			}
			return we
		}
	}
	we := &workspaceEdit{Changes: map[string][]textEdit{}}
	for _, te := range data.Fix.Edits {
		we.Changes[te.At.URI] = append(we.Changes[te.At.URI], textEdit{Range: s.toRange(te.At), NewText: te.NewText})
	}
	return we
}

// previewOrder analyses the workspace as the fix would leave it, with
// fresh instances of the system (the live ones belong to the snapshot
// loop), and says what happens to the cycle and to the run's order.
// Large workspaces analyse only the run's entry and the edited files.
func (s *Server) previewOrder(ctx context.Context, data *fixData) (label, desc string) {
	s.mu.Lock()
	fresh := s.fresh
	settings := cloneSettings(s.settings)
	s.mu.Unlock()
	live := s.systemNamed(data.System)
	if fresh == nil || live == nil {
		return "", ""
	}
	var sys analysis.System
	for _, x := range fresh() {
		if x.Name() == data.System {
			sys = x
		}
	}
	if sys == nil {
		return "", ""
	}
	byURI := map[string][]analysis.TextEdit{}
	for _, te := range data.Fix.Edits {
		byURI[te.At.URI] = append(byURI[te.At.URI], te)
	}
	var edited []*source.File
	for u, es := range byURI {
		base := s.file(u)
		if base == nil {
			return "", ""
		}
		edited = append(edited, &source.File{URI: u, Path: base.Path, Text: analysis.ApplyEdits(base.Text, es), Language: base.Language})
	}
	ws := s.ws.Fork(edited...)
	in := analysis.Input{Ctx: ctx, Workspace: ws, Settings: settings, Once: true}
	s.mu.Lock()
	paths := append([]string(nil), s.discovered[live]...)
	s.mu.Unlock()
	if len(paths) > 200 {
		// Focused on the edited files, as the first diagnostics of an
		// edit are: a system may then answer for those files only
		// (Partial), which tells whether the problem goes in a second
		// or two, but not the run's new order.
		for _, f := range edited {
			in.Focus = append(in.Focus, f.URI)
		}
	}
	files := analysis.Load([]analysis.System{sys}, in, map[analysis.System][]string{sys: paths})
	after := analysis.Analyze(sys, in, files[sys])
	if ctx.Err() != nil || after == nil {
		return "", ""
	}
	snap := s.snap.latest(ctx)
	var before *analysis.Result
	if snap != nil {
		for _, r := range snap.results {
			if r.System == data.System {
				before = r
			}
		}
	}
	still := false
	for _, d := range after.Diags {
		if d.Code == data.Code && d.Message == data.Problem {
			still = true
		}
	}
	cycle := analysis.Diagnostic{Code: data.Code}.Loop()
	switch {
	case data.Fix.Kind == "move":
		label = "The same relationship, written on the other side"
	case still && cycle:
		label = "The cycle remains (another relationship closes it)"
	case cycle:
		label = "Breaks the cycle"
	case still:
		label = "The problem remains"
	default:
		label = "Fixes: " + strings.SplitN(data.Problem, "\n", 2)[0]
	}
	if after.Partial {
		return label, "the new order is computed once the change is made (large workspace)"
	}
	oldRun, newRun := findRun(before, data), findRun(after, data)
	if oldRun == nil || newRun == nil {
		return label, ""
	}
	if newRun.Refused {
		// no order to compare: the tool applies nothing
		return label, fmt.Sprintf("%s is still refused", newRun.Name)
	}
	if oldRun.Refused {
		// the old order was never applied: show the one that now would be
		ls := labels(newRun)
		more := ""
		if len(ls) > 8 {
			ls, more = ls[:8], fmt.Sprintf(" … and %d more", len(ls)-8)
		}
		for i := range ls {
			ls[i] = fmt.Sprintf("%d. %s", i+1, ls[i])
		}
		return label, fmt.Sprintf("%s would run %s%s", newRun.Name, strings.Join(ls, ", "), more)
	}
	d := analysis.DiffOrder(labels(oldRun), labels(newRun))
	var parts []string
	for _, m := range d.Moved {
		parts = append(parts, fmt.Sprintf("%s %s → %s", m.Label, analysis.Ordinal(m.From+1), analysis.Ordinal(m.To+1)))
	}
	for _, a := range d.Appeared {
		parts = append(parts, fmt.Sprintf("%s runs (%s)", a.Label, analysis.Ordinal(a.At+1)))
	}
	for _, v := range d.Vanished {
		parts = append(parts, fmt.Sprintf("%s no longer runs", v.Label))
	}
	switch {
	case d.Empty():
		desc = fmt.Sprintf("order of %s unchanged", newRun.Name)
	case len(parts) > 6:
		desc = fmt.Sprintf("%s: %s and %d more", newRun.Name, strings.Join(parts[:6], ", "), len(parts)-6)
	default:
		desc = fmt.Sprintf("%s: %s", newRun.Name, strings.Join(parts, ", "))
	}
	return label, desc
}

func findRun(r *analysis.Result, data *fixData) *analysis.Run {
	if r == nil {
		return nil
	}
	for i := range r.Runs {
		if r.Runs[i].Name == data.Run {
			return &r.Runs[i]
		}
	}
	for i := range r.Runs {
		if data.Entry != "" && r.Runs[i].Entry == data.Entry {
			return &r.Runs[i]
		}
	}
	return nil
}

func labels(r *analysis.Run) []string {
	out := make([]string, len(r.Steps))
	for i, st := range r.Steps {
		out[i] = st.Label
	}
	return out
}
