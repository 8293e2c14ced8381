package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() { register("textDocument/inlayHint", method{call: (*Server).inlayHint, async: true}) }

// inlayHint writes each declaration's execution position after its name
// (`#5/17`), so the order reads straight off the file. The setting
// inlayHints.enabled=false turns them off.
func (s *Server) inlayHint(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.InlayHintParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	enabled := s.settings.Bool("inlayHints.enabled", true)
	s.mu.Unlock()
	hints := []protocol.InlayHint{}
	if !enabled {
		return hints, nil
	}
	snap := s.snap.viewFor(ctx, string(p.TextDocument.URI), -1)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if snap.snapshot == nil {
		return hints, nil
	}
	u := string(p.TextDocument.URI)
	f := s.file(u)
	if f == nil {
		return hints, nil
	}
	_, lo := s.offset(u, p.Range.Start)
	_, hi := s.offset(u, p.Range.End)
	yes := true
	loops := loopsByMember(snap.results)
	for _, r := range snap.results {
		for _, n := range r.Graph.Nodes {
			if n.Hidden || n.Decl.URI != u {
				continue
			}
			at, ok := snap.span(n.Decl)
			if !ok || at.End < lo || at.Start > hi {
				continue
			}
			ps := r.Positions(n)
			if len(ps) == 0 {
				continue
			}
			if d := loops[declKey{n.Ref, n.Decl}]; d != nil && d.Severity == analysis.Error {
				// a position in a run the tool refuses would be a promise it breaks
				hints = append(hints, protocol.InlayHint{Position: s.toRange(at).End, Label: protocol.String("⟳ no run"),
					Tooltip: protocol.String("in a dependency cycle: does not run until the cycle is broken"), PaddingLeft: &yes})
				continue
			}
			pos := ps[0]
			label := fmt.Sprintf("#%d/%d", pos.Index+1, len(pos.Run.Steps))
			tip := fmt.Sprintf("runs %d of %d in %s", pos.Index+1, len(pos.Run.Steps), pos.Run.Name)
			if pos.Step.Note != "" {
				label += " " + pos.Step.Note
				tip += " (" + pos.Step.Note + ")"
			}
			if r.Partial {
				// a focused analysis: the runs of this document only (code_lens.go)
				tip += "; the workspace is still being analysed: its other runs may place it elsewhere"
			} else if len(ps) > 1 {
				tip += fmt.Sprintf("; also in %d other places", len(ps)-1)
			}
			end := s.toRange(at).End
			hints = append(hints, protocol.InlayHint{
				Position:    end,
				Label:       protocol.String(label),
				Tooltip:     protocol.String(tip),
				PaddingLeft: &yes,
			})
		}
	}
	// A cycle is one problem, on the relationship that closes it; each of
	// its other relationships is tagged where it is written, so the whole
	// loop reads in the file, not only in the problem's related list.
	seen := map[source.Span]bool{}
	for _, r := range snap.results {
		for _, d := range r.Diags {
			if !d.Loop() {
				continue
			}
			title, _, _ := strings.Cut(d.Message, "\n")
			closing := s.whereIn(snap)(d.At)
			for _, rel := range d.Related {
				at, ok := snap.span(rel.At)
				if !ok || at.URI != u || rel.At == d.At || seen[at] || at.End < lo || at.Start > hi {
					continue
				}
				seen[at] = true
				hints = append(hints, protocol.InlayHint{
					Position:    s.toRange(at).End,
					Label:       protocol.String("⟳ cycle"),
					Tooltip:     protocol.String(fmt.Sprintf("%s: one edge of the cycle %s, which the relationship at %s closes", rel.Message, strings.TrimSuffix(title, ":"), closing)),
					PaddingLeft: &yes,
				})
			}
		}
	}
	return hints, nil
}
