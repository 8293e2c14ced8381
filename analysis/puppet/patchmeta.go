package puppet

import (
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A resource added with relationship metaparameters (`service { 'x':
// require => Package['x'] }`, what a user writes most often when adding
// one) is patched in with their edges, when every target is a plain
// resource of a built-in type that the run declares once, not on another
// arm of a conditional than the resource added (else the run would say
// its target is missing, or missing when), and no edge closes a cycle.
// What refreshes a resource is on its hover (refreshFacts): the resource
// added says what it subscribes to, and a target it notifies gets a line
// (refreshedFacts).

// metaPatched: the metaparameters a patch follows.
var metaPatched = map[string]bool{"require": true, "before": true, "subscribe": true, "notify": true}

// planMeta is one target of a relationship metaparameter of the resource
// a plan adds.
type planMeta struct {
	mp       string      // require, before, subscribe
	typ, key string      // Package, Package[x]
	title    string      // as written
	at       source.Span // the reference (its edge's place, and a link)
}

// metaRefs reads a metaparameter's value written in the document uri as
// references of built-in types with literal titles: `Type['t']` or an
// array of them; false for any other value.
func metaRefs(uri, mp string, v pp.Node) ([]planMeta, bool) {
	var out []planMeta
	one := func(n pp.Node) bool {
		ac, ok := n.(*pp.Access)
		if !ok || len(ac.Args) != 1 {
			return false
		}
		tr, ok := ac.X.(*pp.TypeRef)
		s, isStr := ac.Args[0].(*pp.Str)
		if !ok || !isStr || s.Interpolated() || s.Value == "" || strings.ContainsAny(s.Value, "*$[]") {
			return false
		}
		typ := strings.ToLower(strings.TrimPrefix(tr.Value, "::"))
		if typ == "class" || !builtinTypes[typ] || !inertType(typ) {
			return false
		}
		ct := capType(typ)
		out = append(out, planMeta{mp: mp, typ: ct, key: refString(ct, canonTitle(ct, s.Value)), title: s.Value,
			at: source.Span{URI: uri, Start: ac.Loc.Pos, End: ac.Loc.End}})
		return true
	}
	switch t := v.(type) {
	case *pp.Access:
		return out, one(t)
	case *pp.Array:
		for _, e := range t.Elems {
			if !one(e) {
				return nil, false
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}

// metaTargets finds, in the run of s, the node of each metaparameter
// target of p: declared once, by no alias, by no pattern, and not on
// another arm of a conditional the resource added is on (need: its
// branches; else the run says the target is missing when: absentWhen).
func metaTargets(s *runSnap, p *patchPlan, need []uint64) ([]int, bool) {
	out := make([]int, len(p.metas))
	for k, mr := range p.metas {
		if n := countKey(s.declared, mr.key); n != 1 {
			return nil, false
		}
		if aliasOf(s, mr.key) {
			return nil, false
		}
		// (a resource of a title we cannot read that may be it matters
		// only when none has its key: resolveBoth)
		found := -1
		prefix := mr.typ + "["
		for i, sn := range s.nodes {
			n := sn.n
			if sn.kind != 'R' || !strings.HasPrefix(n.Ref, prefix) || !strings.HasSuffix(n.Ref, "]") {
				continue
			}
			title := n.Ref[len(prefix) : len(n.Ref)-1]
			if refString(mr.typ, canonTitle(mr.typ, title)) != mr.key {
				continue
			}
			if found >= 0 {
				return nil, false
			}
			found = i
		}
		if found < 0 {
			return nil, false
		}
		for _, f := range s.nodes[found].n.Facts {
			if f.Label == "title" {
				return nil, false // (a pattern's node)
			}
		}
		if armsConflict(s.order.condsOf(found), need) {
			return nil, false
		}
		out[k] = found
	}
	return out, true
}

func countKey(keys []string, k string) int {
	n := 0
	for _, x := range keys {
		if x == k {
			n++
		}
	}
	return n
}

func aliasOf(s *runSnap, key string) bool {
	_, found := slices.BinarySearch(s.aliases, keyHash(key))
	return found
}

// metaEdges puts into out (edges by the place in s.edges they go
// before) the edges p's metaparameters draw between the resource rn put
// in at place ins and their targets tgt (places of s), where buildRun
// draws them: after the metaparameters' edges of the resources before
// it in catalog order; and the words its hover gets for what refreshes
// it. False when s's metaparameter edges are not that shape.
func (a *analyzer) metaEdges(s *runSnap, np *nodePos, p *patchPlan, tgt []int, ins int, rn *analysis.Node, node func(*analysis.Node) *analysis.Node, out map[int][]*analysis.Edge) ([]analysis.Fact, bool) {
	if len(p.metas) == 0 {
		return nil, true
	}
	// The metaparameters' edges follow the containment ones, each made
	// by a resource at the place of its end (before, notify) or its
	// start (require, subscribe), in catalog order.
	f := len(s.edges)
	for i, e := range s.edges {
		if e.Reason != "contains" && e.Reason != "generated" {
			f = i
			break
		}
	}
	k, last := f, -1
scan:
	for ; k < len(s.edges); k++ {
		e := s.edges[k]
		owner := e.To
		switch e.Reason {
		case "before", "notify":
			owner = e.From
		case "require", "subscribe":
		default:
			break scan // (the chains' edges)
		}
		i, ok := np.of(owner)
		if ok && s.nodes[i].kind == 'Z' {
			i-- // (a container's anchors are side by side: its place is its start's)
		}
		if !ok || int(i) < last {
			return nil, false
		}
		last = int(i)
		if int(i) >= ins {
			break
		}
	}
	var facts []analysis.Fact
	for _, mp := range metaNames {
		for j, mr := range p.metas {
			if mr.mp != mp {
				continue
			}
			t := node(s.nodes[tgt[j]].n)
			e := &analysis.Edge{From: t, To: rn, Kind: metaparams[mp], Reason: mp, At: mr.at} // (the plan's places are the new text's)
			if mp == "before" || mp == "notify" {
				e.From, e.To = rn, t
			}
			out[k] = append(out[k], e)
			if e.Kind == analysis.Refresh && e.To == rn {
				f := a.refreshedBy(e)
				dup := false
				for _, x := range facts {
					dup = dup || x.Template == f.Template
				}
				if !dup {
					facts = append(facts, f)
				}
			}
		}
	}
	return facts, true
}

// refreshedFacts is what the hover of node n of a patched run says (was:
// its facts before the patch, at the new places; edges: the run's edges
// now, added: the patch's edges): the lines it was made with, then one
// "refreshed by" line for each refresh edge into it in edge order, then
// the lines its containers' refreshes give, each once (refreshFacts).
func (a *analyzer) refreshedFacts(was []analysis.Fact, n *analysis.Node, edges []*analysis.Edge, added map[*analysis.Edge]bool) []analysis.Fact {
	const label = "refreshed by"
	var out []analysis.Fact
	for _, f := range was {
		if f.Label != label {
			out = append(out, f)
		}
	}
	old := map[string]bool{} // (the templates of the edges it had)
	var direct []analysis.Fact
	for _, e := range edges {
		if e.Kind != analysis.Refresh || e.To != n {
			continue
		}
		f := a.refreshedBy(e)
		if !added[e] {
			old[f.Template] = true
		}
		direct = append(direct, f)
	}
	var via []analysis.Fact
	for _, f := range was {
		if f.Label == label && !old[f.Template] {
			via = append(via, f)
		}
	}
	for _, nf := range append(direct, via...) {
		dup := false
		for _, f := range out {
			dup = dup || f.Label == label && f.Template == nf.Template
		}
		if !dup {
			out = append(out, nf)
		}
	}
	return out
}

// notified gives each target the resource added notifies its new
// "refreshed by" line in ns.facts (tgt: places in s; ins: the new
// node's); false when a target's words cannot be made.
func (a *analyzer) notified(s, ns *runSnap, p *patchPlan, tgt []int, ins int, extra map[int][]*analysis.Edge, node func(*analysis.Node) *analysis.Node) bool {
	var added map[*analysis.Edge]bool
	for j, mr := range p.metas {
		if mr.mp != "notify" {
			continue
		}
		if added == nil {
			added = map[*analysis.Edge]bool{}
			for _, es := range extra {
				for _, e := range es {
					added[e] = true
				}
			}
		}
		i := int32(tgt[j])
		if i >= int32(ins) {
			i++
		}
		n := node(s.nodes[tgt[j]].n)
		k, found := slices.BinarySearchFunc(ns.facts, i, func(f nodeFacts, i int32) int { return int(f.i - i) })
		var was []analysis.Fact
		if found {
			was = ns.facts[k].facts
		}
		fs := a.refreshedFacts(was, n, ns.edges, added)
		if len(fs) == 0 {
			return false
		}
		if found {
			ns.facts[k].facts = fs
		} else {
			ns.facts = slices.Insert(ns.facts, k, nodeFacts{i, fs})
		}
	}
	return true
}
