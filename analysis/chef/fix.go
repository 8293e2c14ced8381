package chef

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// RelationFixes removes an include_policy line that closes an include
// loop. Reversing an include has no meaning: one of the two policies must
// stop including the other.
func (s *system) RelationFixes(req analysis.FixRequest, e *analysis.Edge) []analysis.Fix {
	f, text := req.File, req.Words(e)
	if text == nil || e.Reason != "include_policy" {
		return nil
	}
	call := string(text[e.At.Start:e.At.End])
	if !strings.HasPrefix(call, "include_policy") {
		return nil
	}
	ls, _ := analysis.LineBounds(text, e.At.Start)
	_, le := analysis.LineBounds(text, e.At.End)
	a, b := e.At.Start, e.At.End
	if strings.TrimSpace(string(text[ls:a])) == "" && strings.TrimSpace(strings.SplitN(string(text[b:le]), "#", 2)[0]) == "" {
		a, b = ls, le
	}
	first := strings.SplitN(call, "\n", 2)[0]
	return []analysis.Fix{{
		Title: fmt.Sprintf("Remove %s", strings.TrimSpace(first)),
		Kind:  "remove",
		Edits: []analysis.TextEdit{{At: source.Span{URI: f.URI, Start: a, End: b}}},
	}}
}
