package puppet

import (
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Declarations no run makes. A resource of an open document that no run
// declared has no node: hovering it said nothing at all, though that is
// the one thing a user most needs to hear about it (work that silently
// never runs: `vcsrepo` in `if $github_username` of a define whose every
// caller leaves the parameter undef). Its type's word and its literal
// titles become links without targets whose title says so, and what it
// lies in (the arms and loops around it, as written), so the user can
// see which data would declare it. The words name no line: a result followed through an edit keeps
// its links' words while their places move (follow.go).
//
// A virtual resource nothing realizes and an exported one are not
// applied by the run that declares them: they say that instead.
func (a *analyzer) absentLinks(g *analysis.Graph) []analysis.Link {
	var out []analysis.Link
	var decls map[string][]source.Span   // the open documents' nodes' places
	var refs map[string][]*analysis.Node // resources by reference (absentWalk.targets)
	for _, doc := range a.ws.Overlays() {
		fi := a.byURI[doc.URI]
		if fi == nil || fi.ast == nil || fi.src == nil {
			continue
		}
		if decls == nil {
			decls = map[string][]source.Span{}
			open := map[string]bool{}
			for _, d := range a.ws.Overlays() {
				open[d.URI] = true
			}
			for _, n := range g.Nodes {
				if n != nil && open[n.Decl.URI] {
					decls[n.Decl.URI] = append(decls[n.Decl.URI], n.Decl)
				}
			}
		}
		have := decls[fi.uri]
		slices.SortFunc(have, func(x, y source.Span) int { return x.Start - y.Start })
		w := absentWalk{node: a.forNode, fi: fi, text: fi.src.Text, have: have, g: g, refs: &refs}
		for _, st := range fi.ast.Stmts {
			w.stmt(st, nil)
		}
		out = append(out, w.out...)
	}
	return out
}

// absentWalk finds the resources of one document that have no node.
type absentWalk struct {
	node string // the node the analysis is for (ordering.node), if any
	g    *analysis.Graph
	refs *map[string][]*analysis.Node
	fi   *fileInfo
	text []byte
	have []source.Span
	out  []analysis.Link
}

// stmt visits n, inside the arms and loops in (outermost first).
func (w *absentWalk) stmt(n pp.Node, in []string) {
	switch t := n.(type) {
	case *pp.ClassDef:
		w.body(t.Body, nil)
	case *pp.DefineDef:
		w.body(t.Body, nil)
	case *pp.NodeDef:
		w.body(t.Body, nil)
	case *pp.If:
		w.ifArms(t, in, "if")
	case *pp.Case:
		head := "case " + w.src(t.X)
		for _, o := range t.Options {
			var vs []string
			for _, v := range o.Values {
				vs = append(vs, w.src(v))
			}
			w.body(o.Body, append(in, "the `"+strings.Join(vs, ", ")+"` arm of `"+head+"`"))
		}
	case *pp.MethodCall:
		if t.Lambda != nil {
			w.body(t.Lambda.Body, append(in, "`"+w.src(t.Recv)+"."+t.Name+"`"))
		}
	case *pp.Call:
		if t.Lambda != nil {
			w.body(t.Lambda.Body, append(in, "`"+t.Name+"(…)`"))
		}
	case *pp.Binary: // chains: `a -> b`, and assignments of a resource
		w.stmt(t.Left, in)
		w.stmt(t.Right, in)
	case *pp.Resource:
		w.resource(t, in)
	}
}

// ifArms visits an if's (or unless's) arms; kw: "if", or "elsif" for
// the if an else holds alone.
func (w *absentWalk) ifArms(t *pp.If, in []string, kw string) {
	if t.Unless {
		kw = "unless"
	}
	head := kw + " " + w.src(t.Cond)
	w.body(t.Then, append(in, "`"+head+"`"))
	if len(t.Else) == 1 {
		if elsif, ok := t.Else[0].(*pp.If); ok && !elsif.Unless && !t.Unless {
			w.ifArms(elsif, in, "elsif")
			return
		}
	}
	w.body(t.Else, append(in, "the `else` of `"+head+"`"))
}

func (w *absentWalk) body(ns []pp.Node, in []string) {
	for _, n := range ns {
		w.stmt(n, in)
	}
}

func (w *absentWalk) resource(t *pp.Resource, in []string) {
	if t.Type == "class" {
		return // (a class's node is its definition's, not this title's)
	}
	absent, last := 0, ""
	for _, b := range t.Bodies {
		if _, ok := b.Title.(*pp.Default); ok || b.Title == nil {
			continue
		}
		l := *b.Title.Span()
		at := source.Span{URI: w.fi.uri, Start: l.Pos, End: l.End}
		if at.End <= at.Start || w.declared(at) {
			continue
		}
		var msg string
		switch {
		case t.Exported:
			msg = "Exported (`@@`): applied only where a node collects it (`<<| |>>`), and no run of this workspace does"
		case t.Virtual:
			msg = "Virtual (`@`) and never realized: no run of this workspace both declares it and realizes it (`realize`, a collector)"
		case w.node != "":
			msg = "Not in the execution order of " + w.node + ": its catalog does not declare it"
		default:
			msg = "Not in any execution order: no run of this workspace declares it"
		}
		if len(in) > 0 {
			msg += " (it lies in " + strings.Join(in, ", in ") + ")"
		}
		switch b.Title.(type) {
		case *pp.Str, *pp.Array:
			w.out = append(w.out, analysis.Link{At: at, Title: msg})
		}
		// (not a title that is a variable: its own link, to what sets
		// it, starts where the title does, and links of one place
		// keep the order they were made in, which a followed result's
		// relinked variables do not)
		last = msg
		absent++
		if !t.Exported && !t.Virtual {
			w.targets(b.Attrs)
		}
	}
	// The type's word says it too when every title does (hovering
	// `package` of a resource that runs shows the resource).
	if absent == len(t.Bodies) && t.TypeExpr == nil && t.TypeLoc.End > t.TypeLoc.Pos {
		w.out = append(w.out, analysis.Link{At: source.Span{URI: w.fi.uri, Start: t.TypeLoc.Pos, End: t.TypeLoc.End}, Title: last})
	}
}

// targets links the references with literal titles in an absent
// resource's attributes (`require => File['/etc/x']`) to the resources
// of that reference the runs declare: no run evaluated them, but the
// user following one wants the same place a declared resource's leads
// to. A title built from values (`File["${dir}/x"]`) is no link.
func (w *absentWalk) targets(attrs []*pp.Attr) {
	for _, at := range attrs {
		pp.Walk(at.Value, func(n pp.Node) bool {
			acc, ok := n.(*pp.Access)
			if !ok {
				return true
			}
			tr, ok := acc.X.(*pp.TypeRef)
			if !ok || strings.EqualFold(tr.Value, "class") {
				return false
			}
			var nodes []*analysis.Node
			for _, arg := range acc.Args {
				s, ok := arg.(*pp.Str)
				if !ok || s.Interpolated() {
					return false
				}
				nodes = append(nodes, w.byRef(refString(capType(strings.ToLower(tr.Value)), canonTitle(capType(strings.ToLower(tr.Value)), s.Value)))...)
			}
			if len(nodes) > 0 {
				w.out = append(w.out, analysis.Link{At: source.Span{URI: w.fi.uri, Start: acc.Pos, End: acc.End}, Nodes: nodes})
			}
			return false
		})
	}
}

// byRef: the graph's resources of reference ref (indexed once).
func (w *absentWalk) byRef(ref string) []*analysis.Node {
	if *w.refs == nil {
		m := map[string][]*analysis.Node{}
		for _, n := range w.g.Nodes {
			if n != nil && n.Kind == "resource" {
				m[n.Ref] = append(m[n.Ref], n)
			}
		}
		*w.refs = m
	}
	return (*w.refs)[ref]
}

// declared: a node lies at the title (one per title of an array; have
// is in the order of the places).
func (w *absentWalk) declared(at source.Span) bool {
	i := sort.Search(len(w.have), func(i int) bool { return w.have[i].Start >= at.Start })
	for ; i < len(w.have) && w.have[i].Start < at.End; i++ {
		if w.have[i].End <= at.End {
			return true
		}
	}
	return false
}

// src is n's text on one line, shortened.
func (w *absentWalk) src(n pp.Node) string {
	if n == nil {
		return ""
	}
	l := *n.Span()
	if l.Pos < 0 || l.End > len(w.text) || l.Pos >= l.End {
		return ""
	}
	s := strings.Join(strings.Fields(string(w.text[l.Pos:l.End])), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}
