package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Text output of `check`, for people: each problem once (a cycle is one
// problem however many resources report it), its first line in the
// `file:line:col: severity: message` form editors and CI logs link, then
// the source line with a caret under the words, the other places that
// report it, and for a cycle every edge with where it was written; a
// summary line at the end. Colour only on a terminal, and never with
// NO_COLOR (no-color.org). --quiet prints only the errors' first lines.

type textOpts struct {
	quiet bool
	color bool
	nodes []string // the nodes of a per-node check (nodes.go)
	// hidden counts by severity what --severity left out
	hidden map[analysis.Severity]int
}

// useColor: stdout is a terminal, NO_COLOR is unset, TERM is not dumb.
func useColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

type problem struct {
	d    analysis.Diagnostic
	also []source.Span
}

// group folds the diagnostics that say the same thing about the same
// places (same severity, code, message and related places: a cycle that
// every resource in it reports) into one problem, at its first place.
// Diagnostics without related places stay apart: the same message at
// two places is two problems.
func group(diags []analysis.Diagnostic) []*problem {
	var out []*problem
	seen := map[string]*problem{}
	for _, d := range diags {
		if len(d.Related) == 0 {
			out = append(out, &problem{d: d})
			continue
		}
		var k strings.Builder
		fmt.Fprintf(&k, "%d\x00%s\x00%s", d.Severity, d.Code, d.Message)
		for _, r := range d.Related {
			fmt.Fprintf(&k, "\x00%s:%d-%d %s", r.At.URI, r.At.Start, r.At.End, r.Message)
		}
		if p := seen[k.String()]; p != nil {
			p.also = append(p.also, d.At)
			continue
		}
		p := &problem{d: d}
		seen[k.String()] = p
		out = append(out, p)
	}
	return out
}

func writeText(w io.Writer, ws *source.Workspace, base string, diags []analysis.Diagnostic, files int, o textOpts) {
	paint := func(code, s string) string {
		if !o.color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	sevColor := map[analysis.Severity]string{analysis.Error: "1;31", analysis.Warning: "1;33", analysis.Info: "1;36", analysis.Hint: "1;36"}
	count := map[analysis.Severity]int{}
	for _, p := range group(diags) {
		d := p.d
		count[d.Severity]++
		if o.quiet {
			if d.Severity == analysis.Error {
				fmt.Fprintln(w, analysis.CheckLine(ws, base, d))
			}
			continue
		}
		msg := strings.ReplaceAll(d.Message, "\n", " ")
		fmt.Fprintf(w, "%s: %s: %s\n", paint("1", analysis.Where(ws, base, d.At)), paint(sevColor[d.Severity], d.Severity.String()), msg)
		frame(w, ws, d.At, paint, sevColor[d.Severity])
		if on := nodesLine(d, o.nodes); on != "" {
			fmt.Fprintf(w, "  %s\n", on)
		}
		if len(p.also) > 0 {
			var at []string
			for _, s := range p.also {
				at = append(at, analysis.Where(ws, base, s))
			}
			fmt.Fprintf(w, "  also reported at %s\n", strings.Join(at, ", "))
		}
		for _, r := range d.Related {
			fmt.Fprintf(w, "  %s %s\n", paint("2", analysis.Where(ws, base, r.At)), r.Message)
		}
		fmt.Fprintln(w)
	}
	if o.quiet {
		return
	}
	writeNodeTable(w, diags, o.nodes)
	var parts []string
	for _, s := range []struct {
		sev  analysis.Severity
		name string
	}{{analysis.Error, "error"}, {analysis.Warning, "warning"}, {analysis.Info, "info"}, {analysis.Hint, "hint"}} {
		if n := count[s.sev]; n > 0 {
			name := s.name
			if n > 1 && name != "info" {
				name += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	unit := "files"
	if files == 1 {
		unit = "file"
	}
	var left []string
	for _, s := range []struct {
		sev  analysis.Severity
		name string
	}{{analysis.Warning, "warning"}, {analysis.Info, "info"}, {analysis.Hint, "hint"}} {
		if n := o.hidden[s.sev]; n > 0 {
			name := s.name
			if n > 1 && name != "info" {
				name += "s"
			}
			left = append(left, fmt.Sprintf("%d %s", n, name))
		}
	}
	tail := ""
	if len(left) > 0 {
		tail = fmt.Sprintf(" (and %s, below --severity)", strings.Join(left, ", "))
	}
	if len(parts) == 0 {
		fmt.Fprintf(w, "no problems in %d %s%s\n", files, unit, tail)
		return
	}
	fmt.Fprintf(w, "%s in %d %s%s\n", strings.Join(parts, ", "), files, unit, tail)
}

// frame prints the line of at with a caret under its characters (to the
// end of the line when it spans several); tabs are kept so the caret
// lines up, wide characters count two columns.
func frame(w io.Writer, ws *source.Workspace, at source.Span, paint func(string, string) string, color string) {
	f := analysis.FileOf(ws, at.URI)
	if f == nil || at.Start < 0 || at.Start > len(f.Text) {
		return
	}
	line, _ := f.Line1Col1(at.Start)
	ls := f.LineStart(line - 1)
	le := ls
	for le < len(f.Text) && f.Text[le] != '\n' {
		le++
	}
	text := strings.TrimRight(string(f.Text[ls:le]), "\r")
	if !utf8.ValidString(text) || len(text) > 400 {
		return
	}
	end := min(max(at.End, at.Start+1), ls+len(text))
	var pad, mark strings.Builder
	for i, r := range text {
		off := ls + i
		switch {
		case off < at.Start:
			if r == '\t' {
				pad.WriteByte('\t')
			} else {
				pad.WriteString(strings.Repeat(" ", runeWidth(r)))
			}
		case off < end:
			mark.WriteString(strings.Repeat("^", max(runeWidth(r), 1)))
		}
	}
	if mark.Len() == 0 {
		mark.WriteString("^")
	}
	num := fmt.Sprint(line)
	gutter := strings.Repeat(" ", len(num))
	fmt.Fprintf(w, " %s | %s\n", paint("2", num), text)
	fmt.Fprintf(w, " %s | %s%s\n", gutter, pad.String(), paint(color, mark.String()))
}

// runeWidth is the terminal width of r: two for East Asian wide and
// emoji ranges, zero for combining marks, one otherwise.
func runeWidth(r rune) int {
	switch {
	case r == '\t':
		return 1
	case r >= 0x0300 && r <= 0x036F, r == 0x200D, r >= 0xFE00 && r <= 0xFE0F:
		return 0
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F, r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
