package cfengine

import (
	"bytes"
	"fmt"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// RelationFixes removes one handle from a depends_on list, or the whole
// depends_on attribute when it is the only one. There is no "reverse":
// the other promise would need a handle and a depends_on of its own,
// which is a design decision, not a fix.
func (s *System) RelationFixes(req analysis.FixRequest, e *analysis.Edge) []analysis.Fix {
	f, text := req.File, req.Words(e)
	if text == nil || e.Reason != "depends_on" {
		return nil
	}
	start, end := e.At.Start, e.At.End
	if start > 0 && end < len(text) && text[start-1] == '"' && text[end] == '"' {
		start, end = start-1, end+1 // the quotes go too
	}
	handle := string(text[start:end])
	// the list around the handle: `depends_on => { "a", "b" }`
	open := bytes.LastIndexByte(text[:start], '{')
	closeRel := bytes.IndexByte(text[end:], '}')
	if open < 0 || closeRel < 0 {
		return nil
	}
	closing := end + closeRel
	arrow := bytes.LastIndex(text[:open], []byte("=>"))
	if arrow < 0 || len(bytes.TrimSpace(text[arrow+2:open])) != 0 {
		return nil
	}
	name := bytes.TrimRight(text[:arrow], " \t\r\n")
	attrStart := len(name) - len("depends_on")
	if attrStart < 0 || string(name[attrStart:]) != "depends_on" {
		return nil
	}
	items := bytes.Count(bytes.TrimSpace(text[open+1:closing]), []byte(",")) + 1
	if bytes.HasSuffix(bytes.TrimSpace(text[open+1:closing]), []byte(",")) {
		items--
	}
	var a, b int
	if items > 1 {
		a, b = analysis.ListItemSpan(text, start, end, ',')
	} else {
		a, b = analysis.ListItemSpan(text, attrStart, closing+1, ',')
	}
	return []analysis.Fix{{
		Title: fmt.Sprintf("Remove %s from depends_on", handle),
		Kind:  "remove",
		Edits: []analysis.TextEdit{{At: source.Span{URI: f.URI, Start: a, End: b}}},
	}}
}
