package puppet

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
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

func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
