package salt

import (
	"bytes"
	"slices"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Early cutoff (analysis.Movable): a comment or blank line typed into an
// SLS file moves the last result instead of asking for a new analysis,
// when it provably changes nothing Salt reads. The tokens see comment and
// blank lines; Salt renders Jinja before it reads YAML, so what the
// tokens call layout may still change the text YAML reads, and such an
// edit is refused (LayoutOnly) unless none of these lies next to it:
//   - a Jinja tag with whitespace control (`{%-`, `-%}`, `{#- -#}`): it
//     strips blank lines up to the first other text, so a comment typed
//     there stops the stripping and is joined to what follows the tag
//     (`a: 1` / `{%- if x -%}` / `# c` / `b: 2` renders `a: 1# c` and
//     `b: 2`, a scalar `1# c` where `1` was; `{#- c -#}` joins the lines
//     around it);
//   - a Jinja statement just above (`{% for %}`, `{% else %}`...): the
//     edit begins a loop's body or a branch, whose rendering follows text
//     from elsewhere (the previous iteration, the other branch of an
//     undecided if), and a comment there becomes the end of the state
//     read before it, in an order a move cannot follow (stateEnd trims
//     such lines only where the source has them after the state);
//   - the body of a Jinja block whose output is a value (`{% set x %}`,
//     macro, call, filter, load_yaml/json/text): its lines are the value;
//   - a block scalar (`|`, `>`) or a plain or quoted scalar over several
//     lines: a blank line is content there, a Jinja comment line renders
//     as one, and a YAML comment line ends a plain scalar.
//   - a syntax error anywhere in the file: where YAML finds it can be the
//     next token after blank lines (an unclosed `[` is reported there).
// Blank lines alone are refused only for the last three: whitespace
// control strips them whole or not at all, and where a loop body or a
// branch begins they are whitespace the end of a state is read without.
// "Next to" is the edit's lines with the blank lines around them, in the
// text before the edit and after it. Anything else renders the same text
// with whole comment or blank lines added or taken away, which no YAML
// node, requisite or order sees.

// Movable implements analysis.Movable: every word of Salt's that names a
// line is a template (analysis.WhereMark, written by analysis.WriteLines).
func (s *System) Movable() {}

// LayoutOnly implements analysis.LayoutJudge (see above).
func (s *System) LayoutOnly(old, cur *source.File, m analysis.Shift) bool {
	a, bOld, bCur := analysis.LayoutRegion(old.Text, cur.Text, m)
	// blank lines alone: the edit changes whitespace only
	blank := len(bytes.TrimSpace(old.Text[m.Pre:m.OldEnd])) == 0 && len(bytes.TrimSpace(cur.Text[m.Pre:m.CurEnd])) == 0
	return s.layoutSafe(old, a, bOld, blank) && s.layoutSafe(cur, a, bCur, blank)
}

// layoutSafe reports whether nothing that makes comment and blank lines
// matter lies next to the lines [a, b) of f; blank: the edit types or
// takes out blank lines only.
func (s *System) layoutSafe(f *source.File, a, b int, blank bool) bool {
	src := f.Text
	p, q := a, b
	for p > 0 && isSpace(src[p-1]) {
		p--
	}
	for q < len(src) && isSpace(src[q]) {
		q++
	}
	near := func(x sp.Span) bool { return x.Start <= q && x.End >= p }
	strip, stmts, values := sp.TemplateGuards(src)
	// Blank lines alone are whitespace a tag strips whole or not at all,
	// and a chunk's end is read without them: only comments matter there.
	if !blank {
		for _, x := range strip {
			if near(x) {
				return false
			}
		}
		for _, x := range stmts {
			if x.End == p {
				return false // the edit begins a branch or a loop's body
			}
		}
	}
	for _, x := range values {
		if near(x) {
			return false
		}
	}
	pf := s.viewParse(f)
	if len(pf.Errors) > 0 {
		return false // where an error is found can depend on the lines before it
	}
	lay := pf.Layout()
	for _, x := range lay.Blocks {
		if near(x) {
			return false
		}
	}
	safe := true
	var walk func(n *sp.Node, depth int)
	walk = func(n *sp.Node, depth int) {
		if n == nil || depth > 200 || !safe {
			return
		}
		switch n.Kind {
		case sp.Scalar:
			if n.Start < 0 || n.End <= n.Start || n.End > len(src) {
				return
			}
			if c := src[n.Start]; c == '|' || c == '>' {
				safe = !near(sp.Span{Start: n.Start, End: blockReach(src, n.Start)})
			} else if bytes.IndexByte(src[n.Start:n.End], '\n') >= 0 {
				safe = !near(sp.Span{Start: n.Start, End: n.End})
			}
		case sp.Map:
			for i := range n.Keys {
				walk(n.Keys[i], depth+1)
				walk(n.Vals[i], depth+1)
			}
		case sp.Seq:
			for _, it := range n.Items {
				walk(it, depth+1)
			}
		}
	}
	for _, e := range pf.Entries {
		walk(e.Key, 0)
		walk(e.Val, 0)
	}
	return safe
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// blockReach is where the block scalar whose indicator is at at may end:
// past the lines indented deeper than the indicator's, blank lines, and
// lines that start with Jinja (whose output, unknown, may be the body:
// `{{ text | indent(8) }}` at column 0).
func blockReach(src []byte, at int) int {
	ls := bytes.LastIndexByte(src[:at], '\n') + 1
	ind := indent(src, ls)
	end := len(src)
	if i := bytes.IndexByte(src[at:], '\n'); i >= 0 {
		end = at + i
	}
	for line := end + 1; line < len(src); {
		le := len(src)
		if i := bytes.IndexByte(src[line:], '\n'); i >= 0 {
			le = line + i
		}
		i := indent(src, line)
		rest := bytes.TrimSpace(src[line+i : le])
		if len(rest) > 0 && i <= ind && rest[0] != '{' {
			break
		}
		if len(rest) > 0 {
			end = le
		}
		line = le + 1
	}
	return end
}

func indent(src []byte, line int) int {
	i := 0
	for line+i < len(src) && (src[line+i] == ' ' || src[line+i] == '\t') {
		i++
	}
	return i
}

// commentSpans are a file's comments and Jinja statements, found once
// (sorted by start).
type commentSpans struct {
	once  sync.Once
	spans []sp.Span
}

// stateEnd is where the text of a state that runs from start to end (its
// chunk: up to the next key at column 0) ends: before the comment, blank
// and Jinja statement lines (`{% else %}`) that close the chunk. They
// introduce what follows, and a comment typed there is then no part of
// the state (the span a moved result keeps, analysis.ShiftResult, is the
// one a new analysis gives).
func (f *sfile) stateEnd(start, end int) int {
	if f.p == nil || f.comments == nil {
		return end
	}
	c := f.comments
	src := f.file.Text
	c.once.Do(func() {
		lay := f.p.Layout()
		c.spans = append(c.spans, lay.Comments...)
		for _, t := range lay.Template {
			if t.Kind == sp.TComment {
				c.spans = append(c.spans, t.Span)
			}
		}
		_, stmts, _ := sp.TemplateGuards(src)
		c.spans = append(c.spans, stmts...)
		slices.SortFunc(c.spans, func(a, b sp.Span) int { return a.Start - b.Start })
	})
	inComment := func(off int) bool {
		i, _ := slices.BinarySearchFunc(c.spans, off, func(s sp.Span, off int) int {
			if s.End <= off {
				return -1
			}
			if s.Start > off {
				return 1
			}
			return 0
		})
		return i < len(c.spans) && c.spans[i].Start <= off && off < c.spans[i].End
	}
	for end > start {
		ls := max(bytes.LastIndexByte(src[:end], '\n')+1, start)
		if ls == start {
			return end
		}
		for i := ls; i < end; i++ {
			if !isSpace(src[i]) && !inComment(i) {
				return end // the line holds more than comments
			}
		}
		end = ls
		for end > start && isSpace(src[end-1]) {
			end--
		}
	}
	return end
}
