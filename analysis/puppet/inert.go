package puppet

import (
	"bytes"
	"strings"
	"sync"

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

// inertJudge is what one complete analysis read that decides how its
// result follows an edit (follow.go): the attribute names its
// workspace's collectors query, and its files' order and kinds.
type inertJudge struct {
	sys     *System
	queried map[string]bool
	anyAttr bool // a query names an attribute we cannot read
	// order: each file's place in the analysis's load (its syntax errors
	// are reported in that order); topLevel: the files with code besides
	// definitions (their own runs refuse to run on a syntax error)
	order    map[string]int
	topLevel map[string]bool
	// the tree of the text the result read, kept between keystrokes
	// (follow.go)
	mu      sync.Mutex
	oldFile *source.File
	oldTree *pp.File
}

// inertJudge returns how the result of a follows an edit (follow.go), or
// nil when a did not read the whole workspace (a focused or canceled
// analysis, or one of a single entry file).
func (s *System) inertJudge(a *analyzer) func(*analysis.Result, *source.File, *source.File, analysis.Shift, func(string, int) int) (*analysis.Result, bool) {
	if a.strict || a.req.Once || a.partial || !a.loadedAll || a.canceled() {
		return nil
	}
	j := &inertJudge{sys: s, queried: map[string]bool{}, order: make(map[string]int, len(a.order)), topLevel: map[string]bool{}}
	for i, fi := range a.order {
		j.order[fi.uri] = i
		if fi.topLevel {
			j.topLevel[fi.uri] = true
		}
	}
	s.mu.Lock()
	prev := s.queries
	next := make(map[*pp.File]fileQueries, len(a.order))
	for _, fi := range a.order {
		if fi.ast == nil {
			s.mu.Unlock()
			return nil // let go (a one-shot analysis): not known
		}
		q, ok := prev[fi.ast]
		if !ok {
			q = queriesOf(fi.ast)
		}
		next[fi.ast] = q
		for _, n := range q.names {
			j.queried[n] = true
		}
		j.anyAttr = j.anyAttr || q.any
	}
	s.queries = next
	s.mu.Unlock()
	return j.follow
}

// fileQueries are the attribute names one file's collectors query.
type fileQueries struct {
	names []string
	any   bool
}

func queriesOf(f *pp.File) fileQueries {
	var q fileQueries
	var query func(n pp.Node)
	query = func(n pp.Node) {
		switch t := n.(type) {
		case nil:
		case *pp.Paren:
			query(t.X)
		case *pp.Binary:
			switch t.Op {
			case "and", "or":
				query(t.Left)
				query(t.Right)
			default:
				switch l := t.Left.(type) {
				case *pp.Name:
					q.names = append(q.names, l.Value)
				case *pp.Str:
					if l.Interpolated() {
						q.any = true
					} else {
						q.names = append(q.names, l.Value)
					}
				default:
					q.any = true
				}
			}
		default:
			q.any = true
		}
	}
	for _, s := range f.Stmts {
		pp.Walk(s, func(n pp.Node) bool {
			if c, ok := n.(*pp.Collector); ok {
				query(c.Query)
			}
			return true
		})
	}
	return q
}

// inert is the judgement (see above).
func (j *inertJudge) inert(old, cur *source.File, m analysis.Shift) bool {
	if !strings.HasSuffix(cur.Path, ".pp") && !strings.HasSuffix(cur.URI, ".pp") {
		return false
	}
	if len(cur.Text) > maxManifest || m.Pre == m.OldEnd && m.Pre == m.CurEnd {
		return false
	}
	// Where the literal is, and whose value it is, in the new text.
	p := j.sys.inertTrees.get(cur.URI)
	p.mu.Lock()
	f := p.ps.Parse(cur.Text)
	lit, name, typ := valueLiteral(f, m.Pre, m.CurEnd)
	p.mu.Unlock()
	if lit == nil || !inertType(typ) || readAttrs[name] || j.queried[name] || j.anyAttr {
		return false
	}
	// The literal is one whole token, in both texts: outside it they are
	// the same text, so they are the same tree but for its value.
	oldEnd := lit.End - (m.CurEnd - m.OldEnd)
	if oldEnd <= lit.Pos || oldEnd > len(old.Text) {
		return false
	}
	return oneLiteral(cur.Text[lit.Pos:lit.End]) && oneLiteral(old.Text[lit.Pos:oldEnd])
}

// valueLiteral finds, in f, the literal holding [from, to) that is the
// whole value of an attribute of a resource declaration (a quoted string
// that interpolates nothing, inside its quotes; a bare word, a number, a
// boolean), with the attribute's name and the resource's type (lower
// case); nil when there is none. A syntax error elsewhere is no matter:
// the text around the literal is the same in both versions, so the
// chunks are cut, and a broken body's statements kept (the parser's
// recovery), the same way; but the error must not lie on the literal,
// whose text its message would quote.
func valueLiteral(f *pp.File, from, to int) (lit *pp.Loc, name, typ string) {
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
					lit, name, typ = at, a.Name, strings.ToLower(r.Type)
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
		return nil, "", ""
	}
	return lit, name, typ
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
	toks := pp.Lex(b)
	if len(toks) != 1 || toks[0].Pos != 0 || toks[0].End != len(b) {
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
