package puppet

import (
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What a run's collectors would collect, kept in its snapshot so that a
// patch can ask whether one would collect the resource it adds or takes
// out (runSnap.cols). A collector of a type in a file every run reads
// (operations-puppet's `File <| tag == 'nrpe::check' |>`) would
// otherwise refuse every patch of that type. A query made of `tag ==`
// comparisons is kept with, for each tag, the classes whose bodies give
// their resources that tag (their names, their `tag`s, and those of the
// bodies that declared them: bodyTagged); comparisons of an attribute
// with a string, number, boolean or undef (`Package <| provider == 'apt'
// |>` in operations-puppet's realm.pp, chained after Class['profile::apt']:
// every package patched into a node's run was refused there) with the
// value, which the plan's literal attributes answer as eqMatch does; any
// other query is taken to collect every resource of its type.

// colSnap is one collector of a run.
type colSnap struct {
	typ string // as resources have it (File)
	q   *colQ  // nil: a query a patch does not read
	// all: it has no query (it collects every resource of the type);
	// attrs: it has an override block (what it collects gains attributes)
	all, attrs bool
	chains     []colChain // the chaining arrows it is an operand of
}

// colChain is a chaining arrow with a collector as one operand
// (`Class['apt::update'] -> Package <| |>`, the apt idiom): buildRun made
// one edge for each pair of the two sides' resources, the source side's
// outer, in catalog order. A patch that adds or takes out a resource the
// collector collects adds or takes out its edges (chainEdges).
type colChain struct {
	at     source.Span
	reason string
	src    bool // the collector's resources are the edges' sources
	others int  // how many resources the other operand gave
	// ok: the collector is the whole operand, the other has no collector,
	// and the arrow orders (a refresh's words are on what it refreshes)
	ok bool
}

// noteChain records, for each collector an operand of rel holds, the
// chain (colChain) buildRun drew for it from left and right (the two
// operands' resources).
//
// silenced: a missing reference of the other operand went unreported
// because the collector collected nothing; a patch that makes it collect
// something cannot follow (the reference's error would come).
func (r *run) noteChain(rel *relation, kind analysis.EdgeKind, reason string, left, right []*res, silenced bool) {
	var lb, rb [1]val
	li, ri := rel.left.items(&lb), rel.right.items(&rb)
	hasCol := func(items []val) bool {
		for _, v := range items {
			if v.k == vCollect {
				return true
			}
		}
		return false
	}
	back := rel.op == "<-" || rel.op == "<~"
	side := func(items, other []val, n int, src bool) {
		for _, v := range items {
			if v.k != vCollect {
				continue
			}
			ch := colChain{at: rel.at, reason: reason, src: src, others: n,
				ok: len(items) == 1 && !hasCol(other) && kind == analysis.Order && !silenced}
			if r.chains == nil {
				r.chains = map[*collector][]colChain{}
			}
			r.chains[v.x.col] = append(r.chains[v.x.col], ch)
		}
	}
	side(li, ri, len(right), !back)
	side(ri, li, len(left), back)
}

// colQ is a query of tag and attribute comparisons.
type colQ struct {
	op      byte // '&', '|', 't' (tag ==), '=' and '!' (attr == and != want), '0' (matches nothing: a value we do not know)
	l, r    *colQ
	tag     string
	classes []string // 't': the displays of the classes whose bodies have the tag
	attr    string   // '=', '!': the attribute (or title) compared
	want    val      // '=', '!': with what (a string, number, boolean or undef)
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
		out = append(out, colSnap{typ: c.typ, q: r.colQuery(c, c.query, classes), all: c.query == nil, attrs: len(c.attrs) > 0, chains: r.chains[c]})
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
		case "==", "!=":
			name := ""
			switch l := t.Left.(type) {
			case *pp.Name:
				name = l.Value
			case *pp.Str:
				name = l.Value
			}
			want, done := c.values[t.Right]
			if name == "" || !done {
				return nil // (a value never evaluated: no resource of the type was looked at)
			}
			if name != "tag" || t.Op == "!=" {
				// (as eqMatch and neMatch: the value written; a scalar
				// kept, the query read as collecting everything else)
				switch want.k {
				case vStr, vNum, vBool, vUndef, vUnknown:
				default:
					return nil
				}
				if !want.known() {
					return &colQ{op: '0'} // (matches nothing, with either operator)
				}
				op := byte('=')
				if t.Op == "!=" {
					op = '!'
				}
				return &colQ{op: op, attr: name, want: val{k: want.k, pat: want.pat, s: want.s}}
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

// collected says what the run's collectors that would collect the plan's
// resource (written in the body of p.classDisplay) do with it: nothing
// (a collector realizes virtual resources alone), or draw the chains'
// edges; false when one does something a patch does not follow (gives
// it attributes, or is in a chain while its query may or may not match).
func (p *patchPlan) collected(s *runSnap) ([]colChain, bool) {
	var chains []colChain
	for _, c := range s.cols {
		if !strings.EqualFold(c.typ, p.typ) || c.q != nil && !p.matches(c.q) {
			continue
		}
		if c.attrs || len(c.chains) > 0 && !c.all {
			return nil, false
		}
		for _, ch := range c.chains {
			if !ch.ok {
				return nil, false
			}
			chains = append(chains, ch)
		}
	}
	// Each chain's edges are found by its place: two arrows at one place
	// (one written in a define with two instances) are not told apart.
	for _, ch := range chains {
		n := 0
		for _, c := range s.cols {
			for _, o := range c.chains {
				if o.at == ch.at && o.reason == ch.reason {
					n++
				}
			}
		}
		if n > 1 {
			return nil, false
		}
	}
	return chains, true
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
	case '=', '!':
		have, ok := p.queried(q.attr)
		if !ok {
			return true // (a value judge did not read: it may)
		}
		if q.op == '!' {
			return neVal(have, q.want)
		}
		return eqVal(have, q.want)
	}
	return false
}

// queried is what a query comparing attr reads of the plan's resource,
// as queried does of a run's: its title, an attribute's literal value,
// undef for one not written; false for a value judge did not read
// (a template's text, a relationship).
func (p *patchPlan) queried(attr string) (val, bool) {
	if attr == "title" {
		return str(p.title, source.Span{}), true
	}
	v, ok := p.vals[attr]
	if !ok {
		return val{k: vUndef}, true
	}
	return v, v.k != vUnknown
}

// chainEdges puts into out the edges the chains draw to the resource rn
// a patch puts in at place ins of s's nodes (np), by the place in s.edges
// they go before (len(s.edges): after the last). buildRun drew a chain's edges
// one after another, for each resource of the source side, one to each
// resource of the other, and a collector's resources in catalog order:
// rn's edges go where its place puts them, from (or to) the resources
// the other side gave; node gives a node of s as it is after the edit m.
// False when a chain's edges are not that shape (or there are none: the
// other side's resources are not known).
func chainEdges(s *runSnap, np *nodePos, chains []colChain, ins int, rn *analysis.Node, node func(*analysis.Node) *analysis.Node, m analysis.Shift, out map[int][]*analysis.Edge) bool {
	place := func(n *analysis.Node) int {
		if i, ok := np.of(n); ok {
			return int(i)
		}
		return -1
	}
	for _, ch := range chains {
		first, n := -1, 0
		for i, e := range s.edges {
			if e.At != ch.at || e.Reason != ch.reason {
				continue
			}
			if first < 0 {
				first = i
			} else if i != first+n {
				return false
			}
			n++
		}
		if n == 0 || ch.others <= 0 || n%ch.others != 0 {
			return false
		}
		at, ok := m.Span(ch.at)
		if !ok {
			return false
		}
		cols, others := n/ch.others, ch.others
		edge := func(k int) *analysis.Edge { return s.edges[first+k] }
		mk := func(from, to *analysis.Node) *analysis.Edge {
			return &analysis.Edge{From: from, To: to, Kind: analysis.Order, Reason: ch.reason, At: at}
		}
		before, last := 0, -1 // how many of the collected come before rn
		if !ch.src {
			// edge b*cols+j: the other side's b-th -> the j-th collected
			for j := 0; j < cols; j++ {
				i := place(edge(j).To)
				if i <= last {
					return false
				}
				if last = i; i < ins {
					before++
				}
			}
			for b := 0; b < others; b++ {
				from := edge(b * cols).From
				for j := 0; j < cols; j++ {
					if e := edge(b*cols + j); e.From != from || e.To != edge(j).To || e.Kind != analysis.Order {
						return false
					}
				}
				k := first + b*cols + before
				out[k] = append(out[k], mk(node(from), rn))
			}
			continue
		}
		// edge j*others+b: the j-th collected -> the other side's b-th
		for j := 0; j < cols; j++ {
			from := edge(j * others).From
			i := place(from)
			if i <= last {
				return false
			}
			if last = i; i < ins {
				before++
			}
			for b := 0; b < others; b++ {
				if e := edge(j*others + b); e.From != from || e.To != edge(b).To || e.Kind != analysis.Order {
					return false
				}
			}
		}
		k := first + before*others
		for b := 0; b < others; b++ {
			out[k] = append(out[k], mk(rn, node(edge(b).To)))
		}
	}
	return true
}

// movedCols is cols with its chains' places moved by m (cols itself when
// none moved); false when one lies in the edit.
func movedCols(cols []colSnap, m analysis.Shift) ([]colSnap, bool) {
	var out []colSnap
	for i, c := range cols {
		for j, ch := range c.chains {
			at, ok := m.Span(ch.at)
			if !ok {
				return nil, false
			}
			if at == ch.at {
				continue
			}
			if out == nil {
				out = slices.Clone(cols)
			}
			if &out[i].chains[0] == &cols[i].chains[0] {
				out[i].chains = slices.Clone(c.chains)
			}
			out[i].chains[j].at = at
		}
	}
	if out == nil {
		return cols, true
	}
	return out, true
}
