package puppet

import (
	"bytes"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Early cutoff for values nobody reads (analysis.Result.Follow). Typing a
// file's mode, a package's version or a notify's message into a class
// three hundred runs include changes no catalog's order, no edge, no
// diagnostic and no word of a hover: nothing this analysis computes
// reads that attribute. Such an edit is answered as a comment is, by
// moving the last result through it (analysis.ShiftResult), instead of
// evaluating every run that includes the class again (seconds of CPU
// per keystroke on a control repository).
//
// The judgement is conservative and made on the syntax alone:
//   - the edit lies inside one literal, in the old text and in the new: a
//     quoted string that interpolates nothing (inside its quotes), a bare
//     word that is no keyword, a number or a boolean, on one line;
//   - that literal is the whole value of an attribute of a resource
//     declaration of a built-in type (a defined type's or a class's
//     attributes are parameters its body reads);
//   - no rule of the analysis reads the attribute: not a metaparameter,
//     namevar, alias or autorequire source (readAttrs), and no collector
//     of the workspace the analysis read queries an attribute of that
//     name.
// analysistest.CheckInertEdits holds it to a fresh analysis of the new
// text, and TestInertReadAttrs to every attribute name the package's
// code asks a resource for.

// readAttrs are the attributes some rule of this package reads from a
// resource by name: an edit of their value is analysed again.
var readAttrs = map[string]bool{
	// relationships and what decides which resource a reference names
	"before": true, "require": true, "notify": true, "subscribe": true,
	"stage": true, "tag": true, "alias": true, "title": true, "name": true,
	"provider": true, // (a package's uniqueness key: addAliases)
	// autorequire (autorequire.go, graph.go's generated files)
	"path": true, "target": true, "owner": true, "group": true, "gid": true,
	"groups": true, "cwd": true, "user": true, "command": true,
	"onlyif": true, "unless": true,
}

// inertType reports whether the cutoff may skip the attribute values of
// a resource of type typ: built-in types, but those that contain others
// or change the run itself.
func inertType(typ string) bool {
	switch typ {
	case "stage", "schedule", "resources", "whit", "component", "filebucket":
		return false
	}
	return builtinTypes[typ]
}

// inert is the judgement (see above). A bare word typed at its end
// moves the end of the resource body it ends (a node's full span, which
// a move through the edit leaves before it): ends gives the body's new
// span by its old one then (analysis.ShiftResultFull).
func (j *followJudge) inert(old, cur *source.File, m analysis.Shift) (ok bool, ends map[source.Span]source.Span) {
	if !strings.HasSuffix(cur.Path, ".pp") && !strings.HasSuffix(cur.URI, ".pp") {
		return false, nil
	}
	if len(cur.Text) > maxManifest || m.Pre == m.OldEnd && m.Pre == m.CurEnd {
		return false, nil
	}
	// Where the literal is, and whose value it is, in the new text.
	p := j.sys.inertTrees.get(cur.URI)
	p.mu.Lock()
	f := p.ps.Parse(cur.Text)
	lit, body, name, typ := valueLiteral(f, m.Pre, m.CurEnd)
	p.mu.Unlock()
	if lit == nil || !inertType(typ) || readAttrs[name] || j.queried[name] || j.anyAttr {
		return false, nil
	}
	// The literal is one whole token, in both texts: outside it they are
	// the same text, so they are the same tree but for its value.
	oldEnd := lit.End - (m.CurEnd - m.OldEnd)
	if oldEnd <= lit.Pos || oldEnd > len(old.Text) {
		return false, nil
	}
	if !oneLiteral(cur.Text[lit.Pos:lit.End]) || !oneLiteral(old.Text[lit.Pos:oldEnd]) {
		return false, nil
	}
	if body.End == lit.End && body.Pos < m.Pre {
		ends = map[source.Span]source.Span{
			{URI: cur.URI, Start: body.Pos, End: oldEnd}: {URI: cur.URI, Start: body.Pos, End: body.End}}
	}
	return true, ends
}

// valueLiteral finds, in f, the literal holding [from, to) that is the
// whole value of an attribute of a resource declaration (a quoted string
// that interpolates nothing, inside its quotes; a bare word, a number, a
// boolean), with its resource body, the attribute's name and the
// resource's type (lower case); nil when there is none. A syntax error elsewhere is no matter:
// the text around the literal is the same in both versions, so the
// chunks are cut, and a broken body's statements kept (the parser's
// recovery), the same way; but the error must not lie on the literal,
// whose text its message would quote.
func valueLiteral(f *pp.File, from, to int) (lit, body *pp.Loc, name, typ string) {
	stmts := f.Stmts
	var errAt *pp.Loc
	if len(f.Errors) > 0 {
		stmts = nil
		for i := range f.Chunks {
			if c := &f.Chunks[i]; c.Pos <= from && to <= c.End {
				stmts = c.Stmts
				if c.Err != nil {
					errAt = &c.Err.Loc
				}
			}
		}
	}
	var visit func(n pp.Node) bool
	visit = func(n pp.Node) bool {
		if lit != nil {
			return false
		}
		l := n.Span()
		if l == nil || l.Pos > from || l.End < to {
			return false
		}
		r, ok := n.(*pp.Resource)
		if !ok || r.TypeExpr != nil {
			return true
		}
		for _, b := range r.Bodies {
			for _, a := range b.Attrs {
				var at *pp.Loc
				switch v := a.Value.(type) {
				case *pp.Str:
					if !v.Interpolated() && v.Pos < from && to < v.End {
						at = &v.Loc
					}
				case *pp.Name, *pp.Num, *pp.Bool:
					if l := v.Span(); l.Pos <= from && to <= l.End {
						at = l
					}
				}
				if at != nil {
					lit, body, name, typ = at, &b.Loc, a.Name, strings.ToLower(r.Type)
					return false
				}
			}
		}
		return true // a resource in a lambda of an attribute's value
	}
	for _, s := range stmts {
		pp.Walk(s, visit)
		if lit != nil {
			break
		}
	}
	if lit != nil && errAt != nil && errAt.Pos <= lit.End && lit.Pos <= errAt.End {
		return nil, nil, "", ""
	}
	return lit, body, name, typ
}

// oneLiteral reports whether b is one literal token on one line that
// reads nothing: a quoted string that interpolates nothing (its closing
// quote its last byte), a bare word that is no keyword, a number, true or
// false.
func oneLiteral(b []byte) bool {
	if len(b) == 0 || bytes.IndexByte(b, '\n') >= 0 {
		return false
	}
	if q := b[0]; q == '\'' || q == '"' {
		if len(b) < 2 || q == '"' && bytes.IndexByte(b, '$') >= 0 {
			return false
		}
		for i := 1; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case q:
				return i == len(b)-1
			}
		}
		return false
	}
	toks := pp.Lex(b) // one token, then the end of input
	if len(toks) != 2 || toks[1].Kind != pp.TEOF || toks[0].Pos != 0 || toks[0].End != len(b) {
		return false
	}
	switch toks[0].Kind {
	case pp.TNumber:
		return true
	case pp.TName:
		w := toks[0].Val
		return w == "true" || w == "false" || !keywords[w] && w != "undef" && w != "default" && !strings.Contains(w, "::")
	}
	return false
}
