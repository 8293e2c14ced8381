package puppet

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// opposite is the metaparameter that, written in the same place, makes
// the edge point the other way: `require => B` on a runs B first,
// `before => B` runs a first.
var opposite = map[string]string{"require": "before", "before": "require", "subscribe": "notify", "notify": "subscribe"}

var reversedArrow = map[string]string{"->": "<-", "<-": "->", "~>": "<~", "<~": "~>"}

// RelationFixes rewrites a metaparameter reference or a chaining arrow:
// remove it, or reverse it (the opposite metaparameter on the same
// resource; the arrow pointing the other way). Autorequires, containment
// and stages have no words of their own to edit.
func (s *System) RelationFixes(req analysis.FixRequest, e *analysis.Edge) []analysis.Fix {
	f := req.File
	if req.Words(e) == nil {
		return nil
	}
	ast := s.parse(f)
	var out []analysis.Fix
	for _, st := range ast.Stmts {
		pp.Walk(st, func(n pp.Node) bool {
			if out != nil {
				return false
			}
			switch n := n.(type) {
			case *pp.Attr:
				if _, ok := opposite[n.Name]; ok && n.Value != nil && within(n.Value.Span(), e.At) {
					out = attrFixes(f, n, e.At)
					return false
				}
			case *pp.Binary:
				if _, ok := reversedArrow[n.Op]; ok && n.Pos <= e.At.Start && e.At.End <= n.End {
					// the outermost arrow expression holding the edge's arrow
					out = arrowFixes(f, n, e)
					return false
				}
			}
			return true
		})
		if out != nil {
			break
		}
	}
	return out
}

func within(l *pp.Loc, at source.Span) bool { return l.Pos <= at.Start && at.End <= l.End }

// attrFixes edits `require => X` or one element of `require => [X, Y]`.
func attrFixes(f *source.File, a *pp.Attr, at source.Span) []analysis.Fix {
	text := f.Text
	span := func(s, e int) source.Span { return source.Span{URI: f.URI, Start: s, End: e} }
	opp := opposite[a.Name]
	arr, isArr := a.Value.(*pp.Array)
	if isArr && len(arr.Elems) == 1 {
		isArr = false // `require => [X]` is edited like `require => X`
	}
	if !isArr {
		words := a.Name + " => " + oneLine(text[a.Value.Span().Pos:a.Value.Span().End])
		return []analysis.Fix{
			{Title: "Remove " + words, Kind: "remove", Edits: []analysis.TextEdit{{At: span(analysis.ListItemSpan(text, a.Pos, a.End, ','))}}},
			{Title: fmt.Sprintf("Reverse it: %s => %s", opp, oneLine(text[a.Value.Span().Pos:a.Value.Span().End])), Kind: "reverse",
				Edits: []analysis.TextEdit{{At: span(a.NameLoc.Pos, a.NameLoc.End), NewText: opp}}},
		}
	}
	var el pp.Node
	for _, x := range arr.Elems {
		if within(x.Span(), at) {
			el = x
		}
	}
	if el == nil {
		return nil
	}
	elText := oneLine(text[el.Span().Pos:el.Span().End])
	rs, re := analysis.ListItemSpan(text, el.Span().Pos, el.Span().End, ',')
	sep := " "
	if ls, _ := analysis.LineBounds(text, a.Pos); strings.TrimSpace(string(text[ls:a.Pos])) == "" {
		sep = "\n" + analysis.Indent(text, a.Pos)
	}
	return []analysis.Fix{
		{Title: fmt.Sprintf("Remove %s from %s", elText, a.Name), Kind: "remove", Edits: []analysis.TextEdit{{At: span(rs, re)}}},
		{Title: fmt.Sprintf("Reverse it: %s => %s", opp, elText), Kind: "reverse", Edits: []analysis.TextEdit{
			{At: span(a.Pos, a.Pos), NewText: fmt.Sprintf("%s => %s,%s", opp, elText, sep)},
			{At: span(rs, re)},
		}},
	}
}

// arrowFixes edits one arrow of a chain `o0 -> o1 ~> o2 ...`.
func arrowFixes(f *source.File, chain *pp.Binary, e *analysis.Edge) []analysis.Fix {
	text := f.Text
	var operands []pp.Node
	var arrows []*pp.Binary
	var flatten func(n pp.Node)
	flatten = func(n pp.Node) {
		if b, ok := n.(*pp.Binary); ok {
			if _, arrow := reversedArrow[b.Op]; arrow {
				flatten(b.Left)
				arrows = append(arrows, b)
				operands = append(operands, b.Right)
				return
			}
		}
		operands = append(operands, n)
	}
	flatten(chain)
	k := -1
	for i, b := range arrows {
		if b.OpLoc.Pos == e.At.Start && b.OpLoc.End == e.At.End {
			k = i
		}
	}
	if k < 0 {
		return nil
	}
	b := arrows[k]
	left, right := operands[:k+1], operands[k+1:]
	span := func(s, e int) source.Span { return source.Span{URI: f.URI, Start: s, End: e} }
	first, last := operands[0].Span(), operands[len(operands)-1].Span()
	// Each side stays a statement of its own unless it is a lone
	// reference: Puppet rejects a value nobody uses.
	var kept []string
	if len(left) > 1 || !idle(left[0]) {
		kept = append(kept, string(text[first.Pos:left[len(left)-1].Span().End]))
	}
	if len(right) > 1 || !idle(right[0]) {
		kept = append(kept, string(text[right[0].Span().Pos:last.End]))
	}
	var remove analysis.TextEdit
	if kept == nil {
		ls, le := analysis.LineBounds(text, first.Pos)
		_, le2 := analysis.LineBounds(text, last.End)
		if strings.TrimSpace(string(text[ls:first.Pos])) == "" && strings.TrimSpace(string(text[last.End:le2])) == "" {
			remove = analysis.TextEdit{At: span(ls, max(le, le2))}
		} else {
			remove = analysis.TextEdit{At: span(first.Pos, last.End)}
		}
	} else {
		remove = analysis.TextEdit{At: span(first.Pos, last.End), NewText: strings.Join(kept, "\n"+analysis.Indent(text, first.Pos))}
	}
	l, r := e.From.Ref, e.To.Ref
	if b.Op == "<-" || b.Op == "<~" {
		l, r = r, l
	}
	rev := reversedArrow[b.Op]
	return []analysis.Fix{
		{Title: fmt.Sprintf("Remove the arrow %s %s %s", l, b.Op, r), Kind: "remove", Edits: []analysis.TextEdit{remove}},
		{Title: fmt.Sprintf("Reverse the arrow: %s %s %s", l, rev, r), Kind: "reverse",
			Edits: []analysis.TextEdit{{At: span(b.OpLoc.Pos, b.OpLoc.End), NewText: rev}}},
	}
}

// idle reports whether a chain operand does nothing on its own: a
// reference or a list of them (a collector realizes resources, a
// declaration declares).
func idle(n pp.Node) bool {
	switch n := n.(type) {
	case *pp.Access:
		_, ok := n.X.(*pp.TypeRef)
		return ok
	case *pp.TypeRef:
		return true
	case *pp.Array:
		for _, x := range n.Elems {
			if !idle(x) {
				return false
			}
		}
		return true
	}
	return false
}

// oneLine is source text on one line, at most 60 characters.
func oneLine(b []byte) string {
	s := oneSpaced(string(b))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// literalRef is a resource reference with one literal title: the only
// kind a declaration can be written for.
var literalRef = lazyre.New(`^([A-Z]\w*(?:::[A-Z]\w*)*)\s*\[\s*(?:'([^'\\$]*)'|"([^"\\$]*)")\s*\]$`)

// DeclareFixes declares the resource a missing reference names, with no
// attributes (`package { 'nginx': }` is a complete declaration: every
// type has defaults), on a line of its own just above the declaration or
// statement holding the reference, so it lands in the same class or
// define body. Class references are left alone: a class is a file of its
// own in a module.
func (s *System) DeclareFixes(req analysis.FixRequest, d analysis.Diagnostic) []analysis.Fix {
	f := req.File
	if f == nil || d.At.URI != f.URI || d.At.Start < 0 || d.At.End > len(f.Text) || d.At.Start >= d.At.End {
		return nil
	}
	m := literalRef.FindSubmatch(f.Text[d.At.Start:d.At.End])
	if m == nil || string(m[1]) == "Class" {
		return nil
	}
	title := string(m[2]) + string(m[3])
	if strings.TrimSpace(title) == "" {
		return nil
	}
	at := d.At.Start
	if req.Result != nil {
		// the resource whose declaration holds the reference
		best := -1
		for _, n := range req.Result.Graph.Nodes {
			if n.Hidden || n.Container || n.Kind != "resource" || n.Full.URI != f.URI || n.Full.Start > d.At.Start || d.At.End > n.Full.End {
				continue
			}
			best = max(best, n.Full.Start)
		}
		if best >= 0 {
			var ok bool
			if at, ok = resourceStart(f.Text, best); !ok {
				return nil // a later title of a body with several: no line of its own above it
			}
		}
	}
	start, _ := analysis.LineBounds(f.Text, at)
	decl := fmt.Sprintf("%s { '%s': }", strings.ToLower(string(m[1])), title)
	return []analysis.Fix{{
		Title: "Declare " + decl,
		Kind:  "declare",
		Edits: []analysis.TextEdit{{At: source.Span{URI: f.URI, Start: start, End: start}, NewText: analysis.Indent(f.Text, at) + decl + "\n"}},
	}}
}

// resourceStart is where the resource statement whose first title starts
// at title begins (`type {`, `@type {`), when it begins a line.
func resourceStart(text []byte, title int) (int, bool) {
	blank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i := title - 1
	for i >= 0 && blank(text[i]) {
		i--
	}
	if i < 0 || text[i] != '{' {
		return 0, false
	}
	i--
	for i >= 0 && blank(text[i]) {
		i--
	}
	end := i + 1
	for i >= 0 && (text[i] == '_' || text[i] == ':' || 'a' <= text[i] && text[i] <= 'z' || 'A' <= text[i] && text[i] <= 'Z' || '0' <= text[i] && text[i] <= '9') {
		i--
	}
	if i+1 == end || !('a' <= text[i+1] && text[i+1] <= 'z') {
		return 0, false
	}
	for i >= 0 && text[i] == '@' {
		i--
	}
	start, _ := analysis.LineBounds(text, i+1)
	if strings.TrimSpace(string(text[start:i+1])) != "" {
		return 0, false
	}
	return i + 1, true
}
