package analysis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// FileOf returns the text of the file named by a URI: the open document,
// or the disk. Nil when it is gone.
func FileOf(ws *source.Workspace, uri string) *source.File {
	if f := ws.Overlay(uri); f != nil {
		return f
	}
	if p := source.URIToPath(uri); p != "" {
		return ws.Lookup(p)
	}
	return nil
}

// Where renders a span as `file:line:col` (1-based, byte columns), with
// the path relative to base when it lies inside it.
func Where(ws *source.Workspace, base string, at source.Span) string {
	name, f := whereFile(ws, base, at)
	if f == nil {
		return name
	}
	l, c := f.Line1Col1(at.Start)
	return fmt.Sprintf("%s:%d:%d", name, l, c)
}

// WhereMark is Where for words kept as a template: the line is a mark
// (LineMark) that WriteLines writes out, so that a comment typed above
// the place moves the words instead of asking for a new analysis.
func WhereMark(ws *source.Workspace, base string, at source.Span) string {
	name, f := whereFile(ws, base, at)
	if f == nil {
		return name
	}
	_, c := f.Line1Col1(at.Start)
	return name + ":" + LineMark(at) + ":" + strconv.Itoa(c)
}

// whereFile names a span's file as Where writes it, and finds its text.
func whereFile(ws *source.Workspace, base string, at source.Span) (string, *source.File) {
	name := at.URI
	if p := source.URIToPath(at.URI); p != "" {
		name = p
		if base != "" {
			name = Rel(base, p)
		}
	}
	return name, FileOf(ws, at.URI)
}

// CheckLine renders a diagnostic in `check` format:
// `file:line:col: severity: message`. Multi-line messages are folded onto
// one line so each diagnostic stays one line of output.
func CheckLine(ws *source.Workspace, base string, d Diagnostic) string {
	msg := strings.ReplaceAll(d.Message, "\n", " ")
	return fmt.Sprintf("%s: %s: %s", Where(ws, base, d.At), d.Severity, msg)
}

// Count writes n and the noun: "1 run", "2 runs".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Ordinal writes 1st, 2nd, 3rd, 4th, 11th, 21st...
func Ordinal(n int) string {
	suffix := "th"
	switch n % 100 {
	case 11, 12, 13:
	default:
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
