package lsp

import (
	"bytes"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Edits that change only comments and blank lines change no syntax tree,
// only positions: a comment typed at the top of a 10,000-line manifest
// moves every diagnostic below it by a line and nothing else. The server
// publishes the last analysis's diagnostics of such a document at once,
// shifted through the edit, instead of making the user wait for an
// analysis; the analysis still runs (a shifted diagnostic's words may
// name a line number, and incremental must equal from scratch), and
// publishes again only what differs.

// layoutOnly reports whether the edit between old and cur (m) changes
// only comment and blank lines, as the system's own tokens say: the lines
// it touches that are not comments or blank read the same, in the same
// order, in both texts.
func layoutOnly(tokens func(*source.File) []analysis.Token, old, cur *source.File, m *shift) bool {
	if m.pre == len(old.Text) && m.pre == len(cur.Text) {
		return true // the same text
	}
	a := bytes.LastIndexByte(old.Text[:m.pre], '\n') + 1 // both texts' line start
	codeOld, ok := codeLines(tokens(old), old, a, lineEnd(old.Text, m.oldEnd))
	if !ok {
		return false
	}
	codeCur, ok := codeLines(tokens(cur), cur, a, lineEnd(cur.Text, m.curEnd))
	if !ok || len(codeOld) != len(codeCur) {
		return false
	}
	for i := range codeOld {
		if !bytes.Equal(codeOld[i], codeCur[i]) {
			return false
		}
	}
	return true
}

// lineEnd is the end of the line holding off, after its newline.
func lineEnd(text []byte, off int) int {
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(text)
}

// codeLines lists the lines of f.Text[a:b] that are neither blank nor
// comments alone; false when a blank line lies inside a token (a
// multi-line string or heredoc, where it is content).
func codeLines(toks []analysis.Token, f *source.File, a, b int) ([][]byte, bool) {
	kindAt := func(off int) (analysis.TokenKind, bool) {
		// tokens are flat and in order: binary search
		lo, hi := 0, len(toks)
		for lo < hi {
			mid := (lo + hi) / 2
			if toks[mid].End <= off {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(toks) && toks[lo].Start <= off {
			return toks[lo].Kind, true
		}
		return analysis.TokNone, false
	}
	var code [][]byte
	for start := a; start < b; {
		end := lineEnd(f.Text, start)
		line := f.Text[start:end]
		trimmed := bytes.TrimSpace(line)
		switch {
		case len(trimmed) == 0:
			if k, in := kindAt(start); in && k != analysis.TokComment {
				return nil, false
			}
		default:
			comment := true
			for i, c := range line {
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
					continue
				}
				if k, _ := kindAt(start + i); k != analysis.TokComment {
					comment = false
					break
				}
			}
			if !comment {
				code = append(code, line)
			}
		}
		if end == start {
			break
		}
		start = end
	}
	return code, true
}

// shiftedDiagnostics publishes, for each document in focus whose edit
// since the newest analysis of it changed only its layout, that
// analysis's diagnostics of the document moved through the edit.
func (sn *snapshotter) shiftedDiagnostics(focus []string) {
	for _, u := range focus {
		cur := sn.s.ws.Overlay(u)
		if cur == nil {
			continue
		}
		best := sn.newestWith(u)
		if best == nil || best.overlays[u] == cur {
			continue
		}
		old := best.overlays[u]
		m := newShift(u, old.Text, cur.Text)
		tokens := func(f *source.File) []analysis.Token { return sn.s.tokensOf(u, f) }
		if tokens(cur) == nil || !layoutOnly(tokens, old, cur, m) {
			continue
		}
		moved := &analysis.Result{Files: []string{u}}
		for _, r := range best.results {
			for _, d := range r.Diags {
				if d.At.URI != u {
					continue
				}
				var ok bool
				if d.At, ok = m.span(d.At); !ok {
					continue
				}
				d.Related = append([]analysis.Related(nil), d.Related...)
				for i := range d.Related {
					if at, ok := m.span(d.Related[i].At); ok {
						d.Related[i].At = at
					}
				}
				moved.Diags = append(moved.Diags, d)
			}
		}
		sn.s.publishDiagnostics([]*analysis.Result{moved}, map[string]bool{u: true})
	}
}
