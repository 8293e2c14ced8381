package puppet

import (
	"slices"
	"strings"

	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
)

// What a run's collectors would collect, kept in its snapshot so that a
// patch can ask whether one would collect the resource it adds or takes
// out (runSnap.cols). A collector of a type in a file every run reads
// (operations-puppet's `File <| tag == 'nrpe::check' |>`) would
// otherwise refuse every patch of that type. A query made of `tag ==`
// comparisons is kept with, for each tag, the classes whose bodies give
// their resources that tag (their names, their `tag`s, and those of the
// bodies that declared them: bodyTagged); any other query is taken to
// collect every resource of its type.

// colSnap is one collector of a run.
type colSnap struct {
	typ string // as resources have it (File)
	q   *colQ  // nil: a query a patch does not read
}

// colQ is a query of tag comparisons.
type colQ struct {
	op      byte // '&', '|', 't' (tag ==), '0' (matches nothing: a value we do not know)
	l, r    *colQ
	tag     string
	classes []string // 't': the displays of the classes whose bodies have the tag
}

// colSnaps: the run's collectors of built-in types (a patch adds no other).
func (r *run) colSnaps() []colSnap {
	var out []colSnap
	var classes []*res
	listed := false
	for _, c := range r.cols {
		if c.fixed != nil || c.exported || !builtinTypes[strings.ToLower(c.typ)] {
			continue // (realize() names its resources; an export collector collects nothing)
		}
		if !listed {
			for _, x := range r.resources {
				if x.kind == "class" && x.inCatalog() {
					classes = append(classes, x)
				}
			}
			listed = true
		}
		out = append(out, colSnap{typ: c.typ, q: r.colQuery(c, c.query, classes)})
	}
	return out
}

func (r *run) colQuery(c *collector, q pp.Node, classes []*res) *colQ {
	switch t := q.(type) {
	case *pp.Paren:
		return r.colQuery(c, t.X, classes)
	case *pp.Binary:
		switch t.Op {
		case "and", "or":
			l, rr := r.colQuery(c, t.Left, classes), r.colQuery(c, t.Right, classes)
			if l == nil || rr == nil {
				return nil
			}
			op := byte('&')
			if t.Op == "or" {
				op = '|'
			}
			return &colQ{op: op, l: l, r: rr}
		case "==":
			name := ""
			switch l := t.Left.(type) {
			case *pp.Name:
				name = l.Value
			case *pp.Str:
				name = l.Value
			}
			want, done := c.values[t.Right]
			if name != "tag" || !done {
				return nil // (a value never evaluated: no resource of the type was looked at)
			}
			ws, ok := want.text()
			if !ok {
				return &colQ{op: '0'}
			}
			out := &colQ{op: 't', tag: ws}
			id := r.tagID(ws)
			for _, x := range classes {
				if r.bodyTagged(id, x, ws, 1) {
					out.classes = append(out.classes, x.display)
				}
			}
			return out
		}
	}
	return nil // (no query: every resource of the type)
}

// collected: whether a collector of the run would collect the plan's
// resource (written in the body of p.classDisplay).
func (p *patchPlan) collected(s *runSnap) bool {
	for _, c := range s.cols {
		if strings.EqualFold(c.typ, p.typ) && (c.q == nil || p.matches(c.q)) {
			return true
		}
	}
	return false
}

func (p *patchPlan) matches(q *colQ) bool {
	switch q.op {
	case '&':
		return p.matches(q.l) && p.matches(q.r)
	case '|':
		return p.matches(q.l) || p.matches(q.r)
	case 't':
		// (as run.tagged: its type, its title when tag-like, its class's body)
		return hasTag(capType(p.typ), q.tag) || hasTag(p.title, q.tag) && validTag(p.title) || slices.Contains(q.classes, p.classDisplay)
	}
	return false
}
