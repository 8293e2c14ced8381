package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

func init() { register("textDocument/hover", method{call: (*Server).hover, async: true}) }

// hover explains the declaration under the cursor, or every target of the
// reference under it (a glob requisite can point at several states).
func (s *Server) hover(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	t := s.at(ctx, p.TextDocumentPositionParams)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var parts []string
	var rng protocol.Range
	where := s.whereIn(t.v)
	switch {
	case t.link != nil:
		rng, _ = s.rangeIn(t.v, t.link.At)
		for _, l := range t.result.LinksLike(t.link) {
			if l.Title != "" && len(l.Nodes) > 0 {
				parts = append(parts, l.Title+"\n") // (a line right above "---" is a heading)
			}
			for i, n := range l.Nodes {
				if i == 3 {
					parts = append(parts, "… and more targets")
					break
				}
				parts = append(parts, analysis.Describe(t.result, n, where))
			}
			var files []string // (one list: the places of one reference)
			for i, f := range l.Files {
				line := "→ `" + where(f) + "`"
				if i < len(l.Notes) && l.Notes[i] != "" {
					line += " — " + l.Notes[i]
				}
				files = append(files, line)
			}
			if len(files) > 0 || l.Title != "" && len(l.Nodes) == 0 {
				if l.Title != "" && len(l.Nodes) == 0 {
					files = append([]string{l.Title}, files...)
				}
				parts = append(parts, strings.Join(files, "\n\n"))
			}
		}
		if len(parts) == 0 {
			return nil, nil
		}
	case t.node != nil:
		parts = append(parts, analysis.Describe(t.result, t.node, where)+s.onEachNode(t, where))
		rng, _ = s.rangeIn(t.v, t.node.Decl)
	case len(t.edges) > 0:
		d := analysis.DescribeEdges(t.result, t.edges)
		if d == "" {
			return nil, nil
		}
		parts = append(parts, d)
		rng, _ = s.rangeIn(t.v, t.edges[0].At)
	default:
		return nil, nil // JSON null: nothing to say here
	}
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: strings.Join(parts, "\n---\n\n")},
		Range:    &rng,
	}, nil
}
