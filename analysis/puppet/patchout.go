package puppet

import (
	"slices"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// unpatchSnap is s without the plan's resource (taken out of its class's
// body), and the places the edit moved moved: patchSnap undone. Nil when
// the run is not one the plan can patch: the resource is not there as a
// plain child of the class (nothing but its two containment edges at
// it but the edges of chains whose collectors collected it, nothing
// linking to it or contained in it), something of the run named it, or
// the class would be left empty (an empty container's edge
// goes where buildRun puts those, which a patch does not know).
func (a *analyzer) unpatchSnap(s *runSnap, p *patchPlan, deps map[depKey]string) *runSnap {
	m := p.shift()
	if i := slices.Index(s.declared, p.key); i < 0 || slices.Contains(s.declared[i+1:], p.key) {
		return a.refuse(40)
	}
	if _, alias := slices.BinarySearch(s.aliases, keyHash(p.key)); alias {
		return a.refuse(41)
	}
	// (another resource was refused its key: it is not once this one
	// is out)
	for _, k := range []string{p.key, p.uniq()} {
		if _, c := slices.BinarySearch(s.aliases, keyHash(contested(k))); c {
			return a.refuse(41)
		}
	}
	if why := p.runSees(s); why > 0 { // (found by defined(), by a concat_file that generates its file unless it is declared...)
		return a.refuse([...]int{0, 53, 54, 42, 43}[why])
	}
	chains, _ := p.collected(s) // (their edges to it go with it)
	chained := func(e *analysis.Edge) bool {
		for _, ch := range chains {
			if e.At == ch.at && e.Reason == ch.reason && e.Kind == analysis.Order {
				return true
			}
		}
		for _, mr := range p.metas { // (its own metaparameters': patchmeta.go)
			if e.At == mr.at && e.Reason == mr.mp {
				return true
			}
		}
		return false
	}
	o := s.order
	np := &nodePos{}
	if a.scratch != nil {
		np = &a.scratch.pos
	}
	np.fill(s.nodes)
	begin, end, out := -1, -1, -1
	for i, sn := range s.nodes {
		n := sn.n
		switch {
		case n.Ref == p.classDisplay && (sn.kind == 'A' || sn.kind == 'Z'):
			at := &begin
			if sn.kind == 'Z' {
				at = &end
			}
			if *at >= 0 {
				return a.refuse(44)
			}
			*at = i
		case sn.kind == 'R' && n.Decl == p.decl && n.Ref == p.display:
			if out >= 0 {
				return a.refuse(45)
			}
			out = i
		}
	}
	if begin < 0 || end < 0 || out < 0 || !o.has(out) {
		return a.refuse(46)
	}
	rn := s.nodes[out].n
	// Beside a cycle: a resource on none takes nothing from the cycles'
	// components, their paths or the branches they need (patchSnap's
	// reasoning, the other way).
	for _, d := range s.diags {
		if len(d.Members) > 0 {
			if cycleTie(s) || onCycle(s, np, out) {
				return a.refuse(65)
			}
			break
		}
	}
	// Its edges: the class's begin -> it -> the class's end, and the
	// class holds something else.
	pairs, others := 0, 0
	for _, e := range s.edges {
		switch {
		case e.From == rn && e.To == s.nodes[end].n || e.From == s.nodes[begin].n && e.To == rn:
			if e.Reason != "contains" || e.Kind != analysis.Order {
				return a.refuse(47)
			}
			pairs++
		case (e.From == rn) != (e.To == rn) && chained(e):
		case e.From == rn || e.To == rn:
			return a.refuse(47)
		case e.From == s.nodes[begin].n && e.Reason == "contains":
			others++
		}
	}
	if pairs != 2 || others == 0 {
		return a.refuse(48)
	}
	for _, pairs := range [2][]int32{o.locals, o.shared} {
		if slices.Contains(pairs, int32(out)) {
			return a.refuse(49)
		}
	}
	for _, t := range s.links.tgt {
		if t == int32(out) {
			return a.refuse(50)
		}
	}
	for k := 0; k+2 < len(o.ends); k += 3 {
		if int(o.ends[k]) == out {
			return a.refuse(51)
		}
	}
	line := func(uri string, off int) int { return a.line(source.Span{URI: uri, Start: off}) }

	ns := &runSnap{deps: deps, run: s.run, missing: s.missing, links: s.links, defs: s.defs,
		patterns: s.patterns, aliases: s.aliases, absent: s.absent, absentElse: s.absentElse, unknownIncludes: s.unknownIncludes, synthetic: s.synthetic,
		probes: s.probes, patRefs: s.patRefs} // (what it looked for stays looked for: probes only refuse)
	var ok bool
	if ns.cols, ok = movedCols(s.cols, m); !ok {
		return a.refuse(55)
	}
	// The lines what it notified had for it go with it.
	var gone map[string]bool
	for _, e := range s.edges {
		if e.From == rn && e.Kind == analysis.Refresh {
			if gone == nil {
				gone = map[string]bool{}
			}
			gone[a.refreshedBy(e).Template] = true
		}
	}
	moved, ok := a.movedNodes(s, p, m, line, rn, gone)
	if !ok {
		return nil
	}
	node := moved.of
	ns.nodes = make([]snapNode, 0, len(s.nodes)-1)
	for i, sn := range s.nodes {
		if i != out {
			ns.nodes = append(ns.nodes, snapNode{node(sn.n), sn.kind})
		}
	}
	drop := func(i int32) int32 { // a place of s's, in ns
		if i > int32(out) {
			i--
		}
		return i
	}
	ns.facts = make([]nodeFacts, 0, len(s.facts))
	for _, f := range s.facts {
		if int(f.i) == out {
			continue
		}
		if gone != nil {
			f.facts = slices.DeleteFunc(slices.Clone(f.facts), func(x analysis.Fact) bool { return x.Label == "refreshed by" && gone[x.Template] })
			if len(f.facts) == 0 {
				continue
			}
		}
		fs, ok := analysis.ShiftFacts(f.facts, m, line)
		if !ok {
			return a.refuse(26)
		}
		ns.facts = append(ns.facts, nodeFacts{drop(f.i), fs})
	}
	ns.edges = make([]*analysis.Edge, 0, len(s.edges)-2)
	for _, e := range s.edges {
		if e.From == rn || e.To == rn {
			continue
		}
		e, ok := moved.edge(e, m)
		if !ok {
			return a.refuse(27)
		}
		ns.edges = append(ns.edges, e)
	}
	sl := s // (its metaparameters' links go with it)
	if len(p.metas) > 0 {
		c := *s
		c.links = s.linksWithout(func(i int) bool {
			at := s.linkAt(i)
			return slices.ContainsFunc(p.metas, func(mr planMeta) bool { return at == mr.at })
		})
		c.ids = nil
		sl = &c
	}
	if !a.movedResult(sl, ns, p, m, line, moved) {
		return nil
	}
	for i, t := range sl.links.tgt {
		if t >= 0 {
			ns.links.tgt[i] = drop(t)
		}
	}
	ns.declared = slices.DeleteFunc(slices.Clone(s.declared), func(k string) bool { return k == p.key })
	// The order, computed again: the classes whose bodies held the
	// resource end one node and one key sooner.
	no := &snapOrder{ordered: make([]uint64, (len(ns.nodes)+63)/64)}
	for i := range s.nodes {
		if i != out && o.has(i) {
			j := drop(int32(i))
			no.ordered[j>>6] |= 1 << (j & 63)
		}
	}
	no.locals, no.shared = renumbered(o.locals, drop), renumbered(o.shared, drop)
	if len(o.ends) > 0 {
		no.ends = make([]int32, len(o.ends))
		for k := 0; k+2 < len(o.ends); k += 3 {
			c, at, d := o.ends[k], o.ends[k+1], o.ends[k+2]
			if at > int32(out) {
				at, d = at-1, d-1
			}
			no.ends[k], no.ends[k+1], no.ends[k+2] = drop(c), at, d
		}
		no.endFacts, no.endConds = o.endFacts, o.endConds
	}
	no.condSets = o.condSets
	for _, c := range o.conds {
		if c.i != int32(out) {
			no.conds = append(no.conds, nodeConds{drop(c.i), c.set})
		}
	}
	ns.order = no
	if p.then == nil { // (replaced: the patch that puts the new one in orders the run)
		ns.run.Steps, _ = orderOf(ns, ns.edges, a.scratch, -1)
		ns.own = true // (its edges, steps and declared are its own: cache.go)
	} else if o.seq != nil && !slices.Contains(o.locals, int32(out)) && !slices.Contains(o.shared, int32(out)) {
		// (what it leaves: patchorder.go's seqHole, in the places of the
		// run with the new one put in at out)
		if ends, ok := orderEnds(s, o, out, s.nodes[out].n); ok {
			no.hole = &seqHole{seq: o.seq, out: out, ends: ends}
		}
	}
	return ns
}
