package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

func init() {
	register("textDocument/codeLens", method{call: (*Server).codeLens, async: true,
		caps: func(c *protocol.ServerCapabilities) { c.CodeLensProvider = &protocol.CodeLensOptions{} }})
}

// showDependencies is the command behind a lens: the editor opens the
// dependency tree (call hierarchy) of the declaration. Arguments: the
// document URI and the declaration's position.
const showDependencies = "ordering.showDependencies"

// codeLens writes above each declaration where it runs and how tied it is:
// `runs 5th of 17 · waits for 2 · 3 depend on it`; on a member of a cycle,
// that it does not run (a position would be a promise the tool breaks).
// The setting codeLens.enabled=false turns them off.
func (s *Server) codeLens(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	enabled := s.settings.Bool("codeLens.enabled", true)
	s.mu.Unlock()
	out := []protocol.CodeLens{}
	if !enabled {
		return out, nil
	}
	u := string(p.TextDocument.URI)
	snap := s.snap.viewFor(ctx, u, -1)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if snap.snapshot == nil {
		return out, nil
	}
	loops := loopsByMember(snap.results)
	for _, d := range declarations(snap.results, u) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var parts []string
		if c := d.loop(loops); c != "" {
			parts = append(parts, c)
		} else if pos := position(d.placedInRun()); pos != "" {
			parts = append(parts, pos)
		}
		if n := len(d.related(waits)); n > 0 {
			parts = append(parts, fmt.Sprintf("waits for %d", n))
		}
		if n := len(d.related(dependents)); n == 1 {
			parts = append(parts, "1 depends on it")
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d depend on it", n))
		}
		rng, ok := s.rangeIn(snap, d.at)
		if len(parts) == 0 || !ok {
			continue
		}
		if d.placedInRun().r.Partial {
			// A focused analysis (after an open or an edit, while the
			// complete one runs) built only the runs of this document: the
			// first run it places the declaration in may not be the
			// complete analysis's, and the others are not counted. The
			// lens says so until the complete analysis lands and the
			// lenses are refreshed (refreshViews).
			parts = append(parts, "analysing the workspace…")
		}
		args, _ := json.Marshal([]any{u, rng.Start})
		var list []protocol.LSPAny
		_ = json.Unmarshal(args, &list)
		out = append(out, protocol.CodeLens{
			Range:   rng,
			Command: protocol.Command{Title: strings.Join(parts, " · "), Command: showDependencies, Arguments: list},
		})
	}
	return out, nil
}

// loopsByMember maps each declaration a loop holds
// (analysis.Diagnostic.Members) to that loop's diagnostic: by declaration,
// not node, as a run restored from an earlier analysis may name its own
// copy of a node.
func loopsByMember(results []*analysis.Result) map[declKey]*analysis.Diagnostic {
	out := map[declKey]*analysis.Diagnostic{}
	for _, r := range results {
		for i := range r.Diags {
			d := &r.Diags[i]
			for _, n := range d.Members {
				k := declKey{n.Ref, n.Decl}
				if out[k] == nil || d.Severity < out[k].Severity {
					out[k] = d
				}
			}
		}
	}
	return out
}

// loop says that the declaration does not run because a loop holds it,
// naming the others in the loop ("does not run: in a dependency cycle
// with Notify[b]"), with the condition of a loop only some runs have;
// "" when no loop holds it.
func (d *decl) loop(loops map[declKey]*analysis.Diagnostic) string {
	if diag := loops[declKey{d.ref, d.at}]; diag != nil {
		var others []string
		seen := map[string]bool{d.ref: true}
		for _, m := range diag.Members {
			if !m.Hidden && !seen[m.Ref] {
				seen[m.Ref] = true
				others = append(others, m.Ref)
			}
		}
		what := "a dependency cycle"
		if diag.Code == "include-loop" {
			what = "an include loop"
		}
		s := "does not run: in " + what
		if i := strings.Index(diag.Message, "\nwhen "); i >= 0 {
			s = "does not run " + strings.TrimSpace(diag.Message[i+1:]) + ": in " + what
		}
		switch {
		case len(others) > 3:
			s += " with " + strings.Join(others[:3], ", ") + fmt.Sprintf(" and %d more", len(others)-3)
		case len(others) > 0:
			s += " with " + strings.Join(others, ", ")
		}
		return s
	}
	return ""
}
