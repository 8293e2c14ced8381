package analysis

import (
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Fixer is implemented by systems that can rewrite the words of a
// relationship: remove it, reverse it, or state it from the other side. The
// server offers them as quick fixes on each explicit edge of a cycle; only
// the system knows the syntax, so the server asks with the edge's span.
type Fixer interface {
	// RelationFixes returns the rewrites of the relationship whose words
	// are at e.At (an edge of req.Result's graph), or nil when the words
	// are not an explicit relationship the system can edit safely.
	RelationFixes(req FixRequest, e *Edge) []Fix
}

// Declarer is implemented by systems that can declare what a missing
// target names: the quick fix "Declare Package['nginx']" writes the
// smallest declaration the tool accepts beside the reference, for the
// user to fill in.
type Declarer interface {
	// DeclareFixes returns the declarations that would resolve d, an
	// unresolved reference in req.File, or nil when its words do not name
	// one thing the system can declare (a computed name, a whole file).
	DeclareFixes(req FixRequest, d Diagnostic) []Fix
}

// FixRequest is what a Fixer may read.
type FixRequest struct {
	Result *Result
	// File holds the edge's words (e.At.URI).
	File *source.File
	// Workspace reads the other files an edit touches (the other side of
	// a Salt requisite).
	Workspace *source.Workspace
}

// Words returns the text of the file holding e's words, or nil when the
// words are not a non-empty span of req.File (an edge with no words of
// its own, or one from another file).
func (req FixRequest) Words(e *Edge) []byte {
	f := req.File
	if f == nil || e.At.URI != f.URI || e.At.Start >= e.At.End || e.At.End > len(f.Text) {
		return nil
	}
	return f.Text
}

// Fix is one rewrite.
type Fix struct {
	// Title is what the editor lists: "Remove require => Package['x']".
	Title string
	// Kind is "remove", "reverse" or "move" (the same relationship written
	// on the other side).
	Kind  string
	Edits []TextEdit
}

// TextEdit replaces the text at At (byte offsets in At.URI) with NewText.
type TextEdit struct {
	At      source.Span
	NewText string
}

// ApplyEdits returns text with the edits of one file applied. Edits must
// not overlap.
func ApplyEdits(text []byte, edits []TextEdit) []byte {
	es := append([]TextEdit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].At.Start < es[j].At.Start })
	var out []byte
	last := 0
	for _, e := range es {
		if e.At.Start < last || e.At.End > len(text) {
			continue
		}
		out = append(out, text[last:e.At.Start]...)
		out = append(out, e.NewText...)
		last = e.At.End
	}
	return append(out, text[last:]...)
}

// LineBounds returns the start of the line holding off and the end of
// that line including its newline.
func LineBounds(text []byte, off int) (start, end int) {
	start = off
	for start > 0 && text[start-1] != '\n' {
		start--
	}
	end = off
	for end < len(text) && text[end] != '\n' {
		end++
	}
	if end < len(text) {
		end++
	}
	return start, end
}

// Indent returns the leading blanks of the line holding off.
func Indent(text []byte, off int) string {
	s, _ := LineBounds(text, off)
	e := s
	for e < len(text) && (text[e] == ' ' || text[e] == '\t') {
		e++
	}
	return string(text[s:e])
}

// ListItemSpan is what to delete to remove the list item at [start, end):
// with a separator and the blanks around it, or the whole line when the
// item is alone on its line, so that the list stays well formed and tidy.
func ListItemSpan(text []byte, start, end int, sep byte) (int, int) {
	after := end
	for after < len(text) && (text[after] == ' ' || text[after] == '\t') {
		after++
	}
	hasSep := after < len(text) && text[after] == sep
	if hasSep {
		after++
	}
	ls, _ := LineBounds(text, start)
	_, le := LineBounds(text, after)
	if strings.TrimSpace(string(text[ls:start])) == "" && strings.TrimSpace(string(text[after:le])) == "" && hasSep {
		return ls, le
	}
	if hasSep {
		for after < len(text) && (text[after] == ' ' || text[after] == '\t') {
			after++
		}
		return start, after
	}
	// last item: take the separator before it
	before := start
	for before > 0 && (text[before-1] == ' ' || text[before-1] == '\t' || text[before-1] == '\n' || text[before-1] == '\r') {
		before--
	}
	if before > 0 && text[before-1] == sep {
		return before - 1, end
	}
	// the only item: take the blanks before it
	before = start
	for before > 0 && (text[before-1] == ' ' || text[before-1] == '\t') {
		before--
	}
	return before, end
}
