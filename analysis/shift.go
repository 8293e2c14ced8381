package analysis

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// An edit that changes only comment and blank lines changes no syntax
// tree, only where things are: a comment typed into a class two hundred
// runs include would otherwise re-evaluate those runs (seconds of CPU on
// a control repository) to learn what it already knows. Such an edit is
// answered by moving the last result through it (ShiftResult): every span
// after the edit shifts, spans around it stretch, and words that name a
// line (LineMark) are written again. Systems whose every word about a
// place goes through LineMark say so by implementing Movable; the others
// are analysed again.

// Movable is implemented by systems whose results may be moved through a
// layout-only edit (ShiftResult) instead of analysed again: nothing in
// their words depends on a place except through LineMark, and a comment
// or blank line changes nothing else they compute.
type Movable interface {
	Movable()
}

// Shift is the edit of one document between the text an analysis read and
// a newer one: both start with Pre bytes in common, and the old text from
// OldEnd on is the new text from CurEnd on.
type Shift struct {
	URI                 string
	Pre, OldEnd, CurEnd int
}

// None: the shift moves no place (an insertion of nothing), as the
// second half of a replacement patch, whose places are already the new
// text's, is.
func (m Shift) None() bool { return m.Pre == m.OldEnd && m.OldEnd == m.CurEnd }

// NewShift compares the text an analysis read with a newer one.
func NewShift(uri string, old, cur []byte) Shift {
	n := min(len(old), len(cur))
	pre := 0
	for pre < n && old[pre] == cur[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && old[len(old)-1-suf] == cur[len(cur)-1-suf] {
		suf++
	}
	return Shift{URI: uri, Pre: pre, OldEnd: len(old) - suf, CurEnd: len(cur) - suf}
}

// point maps an offset of the old text; after says which side of text
// inserted exactly there the offset stays on (a span's start moves with
// what follows it, its end stays with what precedes it). False inside
// the changed region, where the old text has no counterpart.
func (m Shift) point(off int, after bool) (int, bool) {
	switch {
	case off < m.Pre:
		return off, true
	case off > m.OldEnd:
		return off + m.CurEnd - m.OldEnd, true
	case off == m.Pre && off == m.OldEnd: // an insertion point
		if after {
			return m.CurEnd, true
		}
		return m.Pre, true
	case off == m.Pre:
		return m.Pre, true
	case off == m.OldEnd:
		return m.CurEnd, true
	}
	return 0, false
}

// Span maps a span of the old text to the new one: a span around the
// changed region grows or shrinks with it. False for a span that begins
// or ends inside the region, or an empty one where text was inserted
// (which side it belongs to is unknown).
func (m Shift) Span(sp source.Span) (source.Span, bool) {
	if sp.URI != m.URI {
		return sp, true
	}
	s, ok1 := m.point(sp.Start, true)
	e, ok2 := m.point(sp.End, false)
	if !ok1 || !ok2 || e < s {
		return sp, false
	}
	sp.Start, sp.End = s, e
	return sp, true
}

// Line marks: words that name the line of a place (Puppet's "already
// declared at (file: x, line: 12)") keep the place itself in a Template
// beside the words, so that a move can write the line again.
const (
	markOpen = "\uFFF9" // Unicode's interlinear annotation anchor, separator, terminator:
	markSep  = "\uFFFA" // characters meant for out-of-band annotations,
	markEnd  = "\uFFFB" // never part of what a user writes
)

// LineMark stands, in a template, for the 1-based line of at's start.
func LineMark(at source.Span) string {
	return markOpen + at.URI + markSep + strconv.Itoa(at.Start) + markEnd
}

// Lines writes a template's line marks as the lines of the places they
// name; line returns the 1-based line of an offset of a document (0 when
// unknown).
func Lines(tmpl string, line func(uri string, off int) int) string {
	out, _ := rewriteMarks(tmpl, func(uri string, off int) (string, bool) {
		return strconv.Itoa(line(uri, off)), true
	})
	return out
}

// rewriteMarks replaces each well-formed line mark of tmpl by what with
// says of its place; false as soon as with does. A broken mark stays as
// it is.
func rewriteMarks(tmpl string, with func(uri string, off int) (string, bool)) (string, bool) {
	if !strings.Contains(tmpl, markOpen) {
		return tmpl, true
	}
	var b strings.Builder
	for {
		i := strings.Index(tmpl, markOpen)
		if i < 0 {
			b.WriteString(tmpl)
			return b.String(), true
		}
		b.WriteString(tmpl[:i])
		uri, off, rest, ok := cutMark(tmpl[i:])
		if !ok {
			b.WriteString(tmpl[i:])
			return b.String(), true
		}
		w, ok := with(uri, off)
		if !ok {
			return "", false
		}
		b.WriteString(w)
		tmpl = rest
	}
}

// cutMark reads the line mark s starts with.
func cutMark(s string) (uri string, off int, rest string, ok bool) {
	body, rest, ok := strings.Cut(s[len(markOpen):], markEnd)
	if !ok {
		return "", 0, s, false
	}
	uri, num, ok := strings.Cut(body, markSep)
	if !ok {
		return "", 0, s, false
	}
	off, err := strconv.Atoi(num)
	if err != nil {
		return "", 0, s, false
	}
	return uri, off, rest, true
}

// shiftMarks moves the places a template's marks name; false when one
// lies inside the changed region.
func shiftMarks(tmpl string, m Shift) (string, bool) {
	return rewriteMarks(tmpl, func(uri string, off int) (string, bool) {
		at, ok := m.Span(source.Span{URI: uri, Start: off, End: off + 1})
		return LineMark(at), ok
	})
}

// WriteLines writes out the line marks a system left in the words of its
// facts and diagnostics (WhereMark): words holding marks become their
// Template, and are written again from it with the lines of ws's texts.
// Words already written from a template are written again.
func WriteLines(r *Result, ws *source.Workspace) {
	line := func(uri string, off int) int {
		if f := FileOf(ws, uri); f != nil {
			l, _ := f.Line1Col1(off)
			return l
		}
		return 0
	}
	write := func(words, tmpl *string) {
		if *tmpl == "" && strings.Contains(*words, markOpen) {
			*tmpl = *words
		}
		if *tmpl != "" {
			*words = Lines(*tmpl, line)
		}
	}
	for _, n := range r.Graph.Nodes {
		for i := range n.Facts {
			write(&n.Facts[i].Value, &n.Facts[i].Template)
		}
	}
	for i := range r.Diags {
		write(&r.Diags[i].Message, &r.Diags[i].Template)
	}
}

// ShiftResult returns r as an analysis of the newer text would give it
// after the layout-only edit m (see Movable): every span in m.URI moved
// and the words of templates written again from the new text (line).
// False when something of r lies inside the changed region: then only a
// new analysis knows. What does not move is shared with r (results are
// never changed once made): on a control repository most nodes, and most
// runs' steps, lie in other files, and copying them all made a comment
// cost ~0.1 CPU-s.
func ShiftResult(r *Result, m Shift, line func(uri string, off int) int) (*Result, bool) {
	return ShiftResultFull(r, m, line, nil)
}

// ShiftResultFull is ShiftResult where the full spans of some nodes are
// not their old ones moved through m: fulls gives, by a node's old full
// span, its new one. A system says so when the edit moves the end of a
// declaration past text it did not hold (a Puppet resource body ends
// at its last attribute: one typed after it, or a comma, moves the end
// beyond the edit, where a moved span would stay before it).
func ShiftResultFull(r *Result, m Shift, line func(uri string, off int) int, fulls map[source.Span]source.Span) (*Result, bool) {
	if r == nil {
		return nil, true
	}
	// each node's counterpart (itself when nothing of it moves): by its
	// place in the graph, or for a node not there (a run restored from an
	// earlier analysis may hold its own copy) by pointer
	g := r.Graph.Nodes
	inv := r.involved(m.URI)
	byIndex := make([]*Node, len(g))
	other := map[*Node]*Node{}
	var moveNode func(n *Node) (*Node, bool)
	moveNode = func(n *Node) (*Node, bool) {
		if n == nil {
			return nil, true
		}
		inGraph := r.slot(n) >= 0
		if inGraph {
			if !inv.isNode[n.Index] {
				return n, true // nothing of it is in the document
			}
			if c := byIndex[n.Index]; c != nil {
				return c, true
			}
		} else if c, ok := other[n]; ok {
			return c, true
		}
		decl, ok1 := m.Span(n.Decl)
		full, ok2 := m.Span(n.Full)
		if f, set := fulls[n.Full]; set {
			full, ok2 = f, true
		}
		if !ok1 || !ok2 {
			return nil, false
		}
		facts, ok := ShiftFacts(n.Facts, m, line)
		if !ok {
			return nil, false
		}
		parent, ok := moveNode(n.Parent)
		if !ok {
			return nil, false
		}
		c := n
		if decl != n.Decl || full != n.Full || !sameFacts(facts, n.Facts) || parent != n.Parent {
			cp := *n
			cp.Decl, cp.Full, cp.Parent, cp.Facts = decl, full, parent, facts
			c = &cp
		}
		if inGraph {
			byIndex[n.Index] = c
		} else {
			other[n] = c
		}
		return c, true
	}
	// moveNodes is ns with each node's counterpart: ns itself when none
	// moved.
	moveNodes := func(ns []*Node) ([]*Node, bool) {
		var out []*Node
		for i, n := range ns {
			c, ok := moveNode(n)
			if !ok {
				return nil, false
			}
			if c != n && out == nil {
				out = append(make([]*Node, 0, len(ns)), ns[:i]...)
			}
			if out != nil {
				out = append(out, c)
			}
		}
		if out == nil {
			return ns, true
		}
		return out, true
	}
	out := &Result{System: r.System, Files: r.Files, Nodes: r.Nodes, Partial: r.Partial, Follow: r.Follow, ShowRef: r.ShowRef, involvedBy: r.involvedCache()}
	var ok bool
	out.Graph.Nodes = g
	nodesCopied := false
	for _, k := range inv.nodes {
		c, ok := moveNode(g[k])
		if !ok {
			return nil, false
		}
		if c != g[k] {
			if !nodesCopied {
				out.Graph.Nodes, nodesCopied = slices.Clone(g), true
			}
			out.Graph.Nodes[k] = c
		}
	}
	var movedEdges []int // the edges of out that are not r's own
	out.Graph.Edges = r.Graph.Edges
	if len(inv.edges) > 0 {
		out.Graph.Edges = slices.Clone(r.Graph.Edges)
		for _, i := range inv.edges {
			e := r.Graph.Edges[i]
			at, ok := m.Span(e.At)
			if !ok {
				return nil, false
			}
			from, ok1 := moveNode(e.From)
			to, ok2 := moveNode(e.To)
			if !ok1 || !ok2 {
				return nil, false
			}
			if at == e.At && from == e.From && to == e.To {
				out.Graph.Edges[i] = e
				continue
			}
			c := *e
			c.At, c.From, c.To = at, from, to
			out.Graph.Edges[i] = &c
			movedEdges = append(movedEdges, int(i))
		}
	}
	if r.Runs != nil {
		// Only the steps of moved nodes change: the position index names
		// them (scanning every run's steps was ~20 ms of each followed
		// keystroke on operations-puppet's 309,000 steps).
		r.indexPositions()
		out.Runs = slices.Clone(r.Runs)
		copied := make([]bool, len(r.Runs))
		place := func(c *Node, at []posEntry) {
			for _, e := range at {
				if !copied[e.run] {
					out.Runs[e.run].Steps = slices.Clone(r.Runs[e.run].Steps)
					copied[e.run] = true
				}
				out.Runs[e.run].Steps[e.step].Node = c
			}
		}
		for _, k := range inv.nodes {
			if c := byIndex[k]; c != nil && c != g[k] {
				place(c, r.pos.at[r.pos.start[k]:r.pos.start[k+1]])
			}
		}
		for n, at := range r.pos.other {
			c, ok := moveNode(n)
			if !ok {
				return nil, false
			}
			if c != n {
				place(c, at)
			}
		}
	}
	if r.Diags != nil {
		out.Diags = make([]Diagnostic, len(r.Diags))
		for i, d := range r.Diags {
			if d, ok = ShiftDiagnostic(d, m, line); !ok {
				return nil, false
			}
			if d.Members, ok = moveNodes(d.Members); !ok {
				return nil, false
			}
			out.Diags[i] = d
		}
	}
	if r.Links != nil {
		out.Links = make([]Link, len(r.Links))
		for i, l := range r.Links {
			if !span(m, &l.At) {
				return nil, false
			}
			if l.Nodes, ok = moveNodes(l.Nodes); !ok {
				return nil, false
			}
			if l.Files != nil {
				files := l.Files
				l.Files = nil
				for j, f := range files {
					moved := f
					if !(f.Start == 0 && f.End == 0) { // a whole file: a line typed first leaves it the whole file
						if !span(m, &moved) {
							return nil, false
						}
					}
					if moved != f && l.Files == nil {
						l.Files = append(make([]source.Span, 0, len(files)), files[:j]...)
					}
					if l.Files != nil {
						l.Files = append(l.Files, moved)
					}
				}
				if l.Files == nil {
					l.Files = files
				}
			}
			out.Links[i] = l
		}
	}
	out.inheritIndexes(r, moveNode, movedEdges)
	return out, true
}

// span moves *sp through m; false when it begins or ends in the edit.
func span(m Shift, sp *source.Span) bool {
	var ok bool
	*sp, ok = m.Span(*sp)
	return ok
}

// ShiftFacts is facts with the places their words name moved through m:
// facts itself when none moved, else a copy; false when a place lies in
// the edit.
func ShiftFacts(facts []Fact, m Shift, line func(uri string, off int) int) ([]Fact, bool) {
	if m.None() {
		return facts, true
	}
	var out []Fact
	for i, f := range facts {
		if !strings.Contains(f.Template, m.URI) { // (no place of the document: what ShiftWords tells, without building its mark)
			continue
		}
		v, t := f.Value, f.Template
		if !ShiftWords(&v, &t, m, line) {
			return nil, false
		}
		if v != f.Value || t != f.Template {
			if out == nil {
				out = append([]Fact(nil), facts...)
			}
			out[i].Value, out[i].Template = v, t
		}
	}
	if out == nil {
		return facts, true
	}
	return out, true
}

// sameFacts: the same slice (ShiftFacts gives it back when nothing moved).
func sameFacts(a, b []Fact) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// ShiftDiagnostic is d moved through m: its place, its related places and
// the lines its words name (its Members, nodes, are the caller's to
// move); false when one lies in the edit.
func ShiftDiagnostic(d Diagnostic, m Shift, line func(uri string, off int) int) (Diagnostic, bool) {
	if !span(m, &d.At) || !ShiftWords(&d.Message, &d.Template, m, line) {
		return d, false
	}
	if d.Related != nil {
		d.Related = append([]Related(nil), d.Related...)
		for j := range d.Related {
			if !span(m, &d.Related[j].At) {
				return d, false
			}
		}
	}
	return d, true
}

// ShiftWords writes words again from their template (Diagnostic.Template,
// Fact.Template) moved through m; false when a place they name lies in
// the edit. Words without a template stay.
func ShiftWords(words, tmpl *string, m Shift, line func(uri string, off int) int) bool {
	if *tmpl == "" || !strings.Contains(*tmpl, m.URI) || !strings.Contains(*tmpl, m.mark()) {
		return true // no place in the edited document: the words stand
	}
	t, ok := shiftMarks(*tmpl, m)
	if !ok {
		return false
	}
	*tmpl, *words = t, Lines(t, line)
	return true
}

// mark is how every line mark naming a place of m's document begins.
func (m Shift) mark() string { return markOpen + m.URI + markSep }

// LayoutJudge is implemented by systems for which a text's tokens do not
// tell alone whether an edit of comment and blank lines is layout only
// (Salt renders Jinja before it reads YAML: a comment next to a tag that
// strips whitespace is joined to the text after it). LayoutOnly is asked
// only of edits the tokens call layout only (LayoutOnlyBy).
type LayoutJudge interface {
	LayoutOnly(old, cur *source.File, m Shift) bool
}

// LayoutOnlyBy is LayoutOnly, then the judgement of sys (the system that
// owns the document) when it is a LayoutJudge.
func LayoutOnlyBy(sys System, tokens func(*source.File) []Token, old, cur *source.File, m Shift) bool {
	if !LayoutOnly(tokens, old, cur, m) {
		return false
	}
	j, ok := sys.(LayoutJudge)
	return !ok || j.LayoutOnly(old, cur, m)
}

// LayoutRegion is the part of the two texts the layout-only edit m
// touches: the whole lines from the one holding its start, to the end of
// the line holding its end in each text (old[a:bOld], cur[a:bCur]).
func LayoutRegion(old, cur []byte, m Shift) (a, bOld, bCur int) {
	a = bytes.LastIndexByte(old[:m.Pre], '\n') + 1
	return a, lineEnd(old, m.OldEnd), lineEnd(cur, m.CurEnd)
}

// LayoutOnly reports whether the edit m from old to cur changes only
// comment and blank lines, as the tokens of the system that owns the
// document say (tokens returns a text's flat tokens, FlattenTokens): the
// lines it touches that are not comments or blank read the same, in the
// same order, in both texts.
func LayoutOnly(tokens func(*source.File) []Token, old, cur *source.File, m Shift) bool {
	if m.Pre == len(old.Text) && m.Pre == len(cur.Text) {
		return true // the same text
	}
	a, bOld, bCur := LayoutRegion(old.Text, cur.Text, m)
	codeOld, ok := codeLines(tokens(old), old, a, bOld)
	if !ok {
		return false
	}
	codeCur, ok := codeLines(tokens(cur), cur, a, bCur)
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
func codeLines(toks []Token, f *source.File, a, b int) ([][]byte, bool) {
	kindAt := func(off int) (TokenKind, bool) {
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
		return TokNone, false
	}
	var code [][]byte
	for start := a; start < b; {
		end := lineEnd(f.Text, start)
		line := f.Text[start:end]
		trimmed := bytes.TrimSpace(line)
		switch {
		case len(trimmed) == 0:
			if k, in := kindAt(start); in && k != TokComment {
				return nil, false
			}
		default:
			comment := true
			for i, c := range line {
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
					continue
				}
				if k, _ := kindAt(start + i); k != TokComment {
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

// FollowEdit is r moved through the edit m of a document from old to cur
// by its system (Result.Follow): false when the system has no such
// judgement, r is a focused analysis's, or the edit must be analysed.
func (r *Result) FollowEdit(old, cur *source.File, m Shift, line func(uri string, off int) int) (res *Result, ok bool) {
	if r == nil || r.Follow == nil || r.Partial {
		return nil, false
	}
	// A system's bug in judging an edit costs an analysis, not the
	// server: the edit is analysed instead.
	defer func() {
		if recover() != nil {
			res, ok = nil, false
		}
	}()
	return r.Follow(r, old, cur, m, line)
}
