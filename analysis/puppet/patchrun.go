package puppet

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// patched returns the run named name patched from its last snapshot
// (patchplan.go), or nil when it must be built again.
func (a *analyzer) patched(name string) *runSnap {
	if a.prevCache == nil || a.wantLoad || a.strict || a.req.Once || a.ordering != "manifest" {
		return a.refuse(1)
	}
	s := a.prevSnap(name)
	if s == nil || s.order == nil {
		return a.refuse(2)
	}
	// Every input as it was, but the version of one file (deps: their
	// values now, the patched snapshot's inputs).
	var plan *patchPlan
	var moved [][2]string // 'k' inputs whose place changed: [then, now]
	deps := make(map[depKey]string, len(s.deps))
	for k, v := range s.deps {
		cur := a.depValue(k)
		deps[k] = cur
		if cur == v {
			continue
		}
		switch k.kind {
		case 'f', 'c', 'd':
		case 'k': // (a class a link points at: moved by the edit, below)
			moved = append(moved, [2]string{v, cur})
			continue
		default:
			return a.refuse(3)
		}
		p := a.planFor(v, cur)
		if p == nil || plan != nil && plan != p {
			return a.refuse(4)
		}
		plan = p
	}
	if plan == nil || a.wantLoad {
		return a.refuse(5)
	}
	for _, k := range moved {
		if !plan.movesPlace(k[0], k[1]) {
			return a.refuse(3)
		}
	}
	for k, v := range s.deps {
		for p := plan; p != nil; p = p.then {
			if p.readsSeen(k, v) {
				return a.refuse(6)
			}
			if k.kind == 'p' && a.dataMentions(p, k.name) {
				return a.refuse(7)
			}
		}
	}
	if plan.before != nil { // (another edit that moved places only)
		if s = a.moveSnap(s, *plan.before, plan.beforeEnds); s == nil {
			return nil
		}
	}
	patch := a.patchSnap
	switch {
	case plan.arm != nil:
		patch = a.armSnap
	case plan.moveOnly:
		patch = a.movedOnly
	case plan.incl != nil:
		patch = a.inclSnap
	case plan.removed:
		patch = a.unpatchSnap
	}
	ns := patch(s, plan, deps)
	if ns != nil && plan.then != nil { // (replaced: the new one put in)
		if plan.then.arm != nil {
			ns = a.armSnap(ns, plan.then, deps)
		} else {
			ns = a.patchSnap(ns, plan.then, deps)
		}
	}
	if ns != nil {
		a.main.nPatched.Add(1)
	}
	return ns
}

// patchSnap is s with the plan's resource put in after the declaration
// before it, and the places the edit moved moved; nil when the run is
// not one the plan can patch.
//
// A collector that collects it (patchcols.go) draws its chains' edges to
// it too (chainEdges).
func (a *analyzer) patchSnap(s *runSnap, p *patchPlan, deps map[depKey]string) *runSnap {
	m := p.shift()
	// It is no duplicate here, and nothing here asked for it. (A title
	// we cannot read of its type matters only to references and
	// collectors of the type, which the plan rules out.)
	if _, alias := slices.BinarySearch(s.aliases, keyHash(p.key)); slices.Contains(s.declared, p.key) || alias {
		return a.refuse(8)
	}
	if _, taken := slices.BinarySearch(s.aliases, keyHash(p.uniq())); taken { // (a package named so)
		return a.refuse(8)
	}
	// Nobody here looked for it (an autorequire, a generated file), and
	// nothing it looks for by itself is here; the collectors that collect
	// it do nothing a patch does not follow.
	chains, _ := p.collected(s)
	if why := p.runSees(s); why > 0 {
		return a.refuse([...]int{0, 33, 35, 9, 10}[why])
	}
	if cycleTie(s) {
		return a.refuse(66)
	}
	for _, k := range p.ownProbes {
		if _, alias := slices.BinarySearch(s.aliases, keyHash(k)); alias || slices.Contains(s.declared, k) {
			return a.refuse(34)
		}
	}
	// The class's anchors; where the resource goes: after the
	// declaration before it (in the order, not speculative: no facts),
	// or after the nodes the class's body made (then the class is not
	// speculative: snapOrder.ends).
	o := s.order
	np := &nodePos{} // the old snapshot's places by node (its nodes are one analysis's: their Index tells)
	if a.scratch != nil {
		np = &a.scratch.pos
	}
	np.fill(s.nodes)
	begin, end := -1, -1
	prev := -1
	for i, sn := range s.nodes {
		n := sn.n
		switch {
		case n.Ref == p.classDisplay && (sn.kind == 'A' || sn.kind == 'Z'):
			if sn.kind == 'A' {
				if begin >= 0 {
					return a.refuse(11)
				}
				begin = i
			} else {
				if end >= 0 {
					return a.refuse(12)
				}
				end = i
			}
		case !p.atEnd && sn.kind == 'R' && n.Kind == "resource" && n.Decl == p.prevDecl && n.Ref == p.prevDisplay:
			if prev >= 0 {
				return a.refuse(13)
			}
			prev = i
		}
	}
	if begin < 0 || end < 0 {
		return a.refuse(14)
	}
	if refreshedVia(s, np, begin) {
		return a.refuse(36) // (its hover would say what refreshes it: refreshFacts)
	}
	ins, declAt := -1, -1 // declAt: how many keys come before its own
	cls := -1             // the class's entry in o.ends
	for k := 0; k+2 < len(o.ends); k += 3 {
		if int(o.ends[k]) == begin {
			cls = k / 3
		}
	}
	if cls < 0 {
		return a.refuse(15)
	}
	// What a resource at its place is declared under: its class's
	// branches and facts, or in an arm nobody decides, the declaration's
	// beside it in the arm (patcharm.go).
	facts, set, conds := o.endFacts[cls], o.endConds[cls]-1, o.endCondsOf(cls)
	if p.arm != nil {
		if prev < 0 {
			return a.refuse(82)
		}
		if !o.armConds(prev, begin) {
			var ok bool
			if facts, ok = armFacts(s, prev); !ok {
				return a.refuse(82)
			}
			set, conds = o.condSet(prev), o.condsOf(prev)
		}
	}
	// After includes (patchbehind.go): after the body of the class the
	// nearest one declared, or, all of them declared before, after the
	// declaration before them.
	atEnd := p.atEnd
	if p.atEnd {
		ins, declAt = int(o.ends[3*cls+1]), int(o.ends[3*cls+2])
	}
	if len(p.behind) > 0 {
		if p.prevDisplay != "" && (prev < 0 || !o.has(prev)) {
			return a.refuse(83)
		}
		bi, bd, ok := p.placeBehind(s, begin, prev)
		switch {
		case !ok || bi < 0 && prev < 0:
			return a.refuse(83)
		case bi >= 0:
			atEnd, ins, declAt = true, bi, bd
		}
	}
	if atEnd {
	} else if prev >= 0 && o.has(prev) {
		ins = prev + 1
		if p.next { // (before the declaration after it)
			ins = prev
		}
	}
	if ins < 0 || ins > len(s.nodes) {
		return a.refuse(16)
	}
	// The containment edges: a pair (begin -> child, child -> end) per
	// resource in catalog order, after the generated files' edges; the
	// new resource's pair goes before the first pair of a node made
	// after it. With a declaration before it, that one's pair is in the
	// class.
	if !atEnd {
		i := slices.Index(s.declared, p.prevKey)
		if i < 0 {
			return a.refuse(17)
		}
		declAt = i + 1
		if p.next {
			declAt = i
		}
	}
	if declAt < 0 || declAt > len(s.declared) {
		return a.refuse(18)
	}
	kind := func(n *analysis.Node) byte {
		if i, ok := np.of(n); ok {
			return s.nodes[i].kind
		}
		return 0
	}
	first, put, sawPrev := -1, -1, 0
	for k, e := range s.edges {
		if e.Reason == "generated" && first < 0 {
			continue
		}
		if e.Reason != "contains" || e.Kind != analysis.Order || kind(e.From) == 'A' && kind(e.To) == 'Z' {
			if put < 0 {
				put = k
			}
			break
		}
		if first < 0 {
			first = k
		}
		child := e.From
		if kind(e.From) == 'A' {
			child = e.To
		}
		i, ok := np.of(child)
		if !ok {
			return a.refuse(19)
		}
		if !atEnd && int(i) == prev {
			if from, _ := np.of(e.From); e.To == pn(s, prev) && int(from) != begin {
				return a.refuse(20)
			}
			if to, _ := np.of(e.To); e.From == pn(s, prev) && int(to) != end {
				return a.refuse(21) // the declaration before it is not in the class alone
			}
			sawPrev++
		}
		if int(i) >= ins && put < 0 {
			put = k
		}
	}
	if put < 0 {
		put = len(s.edges)
	}
	if !atEnd && sawPrev != 2 {
		return a.refuse(22)
	}
	line := func(uri string, off int) int { return a.line(source.Span{URI: uri, Start: off}) }

	ns := &runSnap{deps: deps, run: s.run, missing: s.missing, links: s.links, defs: s.defs,
		patterns: s.patterns, aliases: s.aliases, absent: s.absent, absentElse: s.absentElse, unknownIncludes: s.unknownIncludes, synthetic: s.synthetic,
		probes: s.probes, patRefs: s.patRefs}
	var ok bool
	if ns.cols, ok = movedCols(s.cols, m); !ok {
		return a.refuse(37)
	}
	if len(p.ownProbes) > 0 { // (what a build would have looked for in vain)
		ns.probes = slices.Clone(s.probes)
		for _, k := range p.ownProbes {
			ns.probes = append(ns.probes, probeHash(k))
		}
		slices.Sort(ns.probes)
		ns.probes = slices.Compact(ns.probes)
	}
	// Nodes: the moved ones copied, the new one put in.
	moved, ok := a.movedNodes(s, p, m, line, nil, nil)
	if !ok {
		return nil
	}
	node := moved.of
	parent := s.nodes[begin].n.Parent // (the class's node)
	if !atEnd {
		parent = s.nodes[prev].n.Parent
	}
	rn := &analysis.Node{Kind: "resource", Ref: p.display, Decl: p.decl, Full: p.full, Parent: node(parent), Index: ins, Facts: facts}
	var tgt []int
	if len(p.metas) > 0 {
		if tgt, ok = metaTargets(s, p, conds); !ok {
			return a.refuse(57)
		}
	}
	extra := map[int][]*analysis.Edge{}
	mfacts, ok := a.metaEdges(s, np, p, tgt, ins, rn, node, extra)
	if !ok {
		return a.refuse(58)
	}
	if len(mfacts) > 0 {
		rn.Facts = append(slices.Clip(facts), mfacts...)
		facts = rn.Facts
	}
	if !chainEdges(s, np, chains, ins, rn, node, m, extra) {
		return a.refuse(38)
	}
	ns.nodes = make([]snapNode, 0, len(s.nodes)+1)
	for i, sn := range s.nodes {
		if i == ins {
			ns.nodes = append(ns.nodes, snapNode{rn, 'R'})
		}
		ns.nodes = append(ns.nodes, snapNode{node(sn.n), sn.kind})
	}
	if ins == len(s.nodes) {
		ns.nodes = append(ns.nodes, snapNode{rn, 'R'})
	}
	ns.facts = make([]nodeFacts, 0, len(s.facts)+1)
	putFacts := func() { // the new node's, in node order
		if len(facts) > 0 && (len(ns.facts) == 0 || int(ns.facts[len(ns.facts)-1].i) < ins) {
			ns.facts = append(ns.facts, nodeFacts{int32(ins), facts})
		}
	}
	for _, f := range s.facts {
		fs, ok := analysis.ShiftFacts(f.facts, m, line)
		if !ok {
			return a.refuse(26)
		}
		if int(f.i) >= ins {
			putFacts()
			f.i++
		}
		ns.facts = append(ns.facts, nodeFacts{f.i, fs})
	}
	putFacts()
	// Edges: the moved ones copied, the new one's containment after the
	// one's before it.
	nx := 2
	var at []int // (extra's places in order: a map lookup per edge was a tenth of the copy)
	for k, es := range extra {
		nx += len(es)
		if len(es) > 0 && k >= 0 {
			at = append(at, k)
		}
	}
	slices.Sort(at)
	ns.edges = make([]*analysis.Edge, 0, len(s.edges)+nx) // (grown, it was a third of the copy's bytes)
	pair := func() {
		ns.edges = append(ns.edges,
			&analysis.Edge{From: node(s.nodes[begin].n), To: rn, Kind: analysis.Order, Reason: "contains", At: p.decl},
			&analysis.Edge{From: rn, To: node(s.nodes[end].n), Kind: analysis.Order, Reason: "contains", At: p.decl})
	}
	for k, e := range s.edges {
		if k == put {
			pair()
		}
		if len(at) > 0 && at[0] == k {
			ns.edges = append(ns.edges, extra[k]...)
			at = at[1:]
		}
		if e.From == s.nodes[begin].n && e.To == s.nodes[end].n && e.Reason == "contains" {
			continue // the class held nothing: now it holds the resource
		}
		e, ok := moved.edge(e, m)
		if !ok {
			return a.refuse(27)
		}
		ns.edges = append(ns.edges, e)
	}
	if put == len(s.edges) {
		pair()
	}
	ns.edges = append(ns.edges, extra[len(s.edges)]...)
	if !a.movedResult(s, ns, p, m, line, moved) {
		return nil
	}
	if !a.notified(s, ns, p, tgt, ins, extra, node) {
		return a.refuse(59)
	}
	for i, t := range s.links.tgt {
		if t >= int32(ins) {
			ns.links.tgt[i] = t + 1
		}
	}
	for j, mr := range p.metas { // (the references link to their targets)
		t := int32(tgt[j])
		if t >= int32(ins) {
			t++
		}
		ns.links.add(mr.at, t)
	}
	ns.declared = slices.Insert(slices.Clone(s.declared), declAt, p.key)
	// The order, computed again.
	no := &snapOrder{ordered: make([]uint64, (len(ns.nodes)+63)/64)}
	for i := range ns.nodes {
		j := i
		if i > ins {
			j = i - 1
		}
		if i == ins || o.has(j) {
			no.ordered[i>>6] |= 1 << (i & 63)
		}
	}
	bump := func(v int32) int32 {
		if v >= int32(ins) {
			v++
		}
		return v
	}
	no.locals, no.shared = renumbered(o.locals, bump), renumbered(o.shared, bump)
	// The classes whose bodies hold the new resource (the class and the
	// ones around it: begun before it) end one node and one key later.
	if len(o.ends) > 0 {
		no.ends = make([]int32, len(o.ends))
		for k := 0; k+2 < len(o.ends); k += 3 {
			c, at, d := o.ends[k], o.ends[k+1], o.ends[k+2]
			if at > int32(ins) || at == int32(ins) && c <= int32(begin) {
				at, d = at+1, d+1
			}
			if c >= int32(ins) {
				c++
			}
			no.ends[k], no.ends[k+1], no.ends[k+2] = c, at, d
		}
		no.endFacts, no.endConds = o.endFacts, o.endConds
	}
	no.condSets = o.condSets
	if len(o.conds) > 0 || set >= 0 { // (the new node's: its class's, or its arm's)
		no.conds = make([]nodeConds, 0, len(o.conds)+1)
		put := func() {
			if set >= 0 && (len(no.conds) == 0 || no.conds[len(no.conds)-1].i < int32(ins)) {
				no.conds = append(no.conds, nodeConds{int32(ins), set})
			}
		}
		for _, c := range o.conds {
			if c.i >= int32(ins) {
				put()
				c.i++
			}
			no.conds = append(no.conds, c)
		}
		put()
	}
	ns.order = no
	// A cycle through it (its relationships' edges may close one, and a
	// class whose anchors are on a cycle puts it on that cycle) is a
	// build's to report.
	steps, ok := insertOrder(ns, o, ins, rn, a.scratch)
	if !ok {
		var cycle bool
		if steps, cycle = orderOf(ns, ns.edges, a.scratch, ins); cycle {
			return a.refuse(39)
		}
	}
	ns.run.Steps = steps
	ns.own = true
	return ns
}

// movedNodes copies the nodes of s the edit moves (skip: one it takes
// out; gone: the templates of the facts that go with it), by node; false
// when one cannot be moved.
func (a *analyzer) movedNodes(s *runSnap, p *patchPlan, m analysis.Shift, line func(string, int) int, skip *analysis.Node, gone map[string]bool) (movedSet, bool) {
	moved := movedSet{}
	if m.None() && len(p.ends) == 0 && gone == nil {
		// (a replacement's second half: copying every node of the file
		// unchanged was a fifth of its patch, and the merge took the
		// copies for new nodes)
		return moved, true
	}
	named := map[factsKey]bool{} // factsName by slice: nodes share their facts
	if sc := a.scratch; sc != nil {
		if sc.namedBy != a.main || sc.namedURI != p.uri || sc.factsNamed == nil {
			sc.factsNamed = map[factsKey]bool{}
			sc.namedBy, sc.namedURI = a.main, p.uri
		}
		named = sc.factsNamed
	}
	var lastFacts factsKey
	lastNamed := false
	for _, sn := range s.nodes {
		n := sn.n
		if n == skip {
			continue
		}
		if n.Decl.URI != p.uri && n.Full.URI != p.uri {
			if len(n.Facts) == 0 {
				continue
			}
			fk := factsKey{&n.Facts[0], len(n.Facts)}
			if fk != lastFacts { // (neighbours share theirs: one lookup per run of them)
				v, ok := named[fk]
				if !ok {
					v = factsName(n.Facts, p.uri)
					named[fk] = v
				}
				lastFacts, lastNamed = fk, v
			}
			if !lastNamed {
				continue
			}
		}
		c := *n
		var ok bool
		if c.Decl, ok = m.Span(n.Decl); !ok {
			a.refuse(23)
			return nil, false
		}
		if f, set := p.ends[n.Full]; set { // (a body whose end moved past the edit: treePair)
			c.Full = f
		} else if c.Full, ok = m.Span(n.Full); !ok {
			a.refuse(24)
			return nil, false
		}
		fs := n.Facts
		if gone != nil { // (lines of refreshes taken out: unpatchSnap)
			fs = slices.DeleteFunc(slices.Clone(fs), func(x analysis.Fact) bool { return x.Label == "refreshed by" && gone[x.Template] })
		}
		if c.Facts, ok = analysis.ShiftFacts(fs, m, line); !ok {
			a.refuse(25)
			return nil, false
		}
		moved[n] = &c
	}
	// A definition the edit moved (a define's, the parent of its
	// instances): a moved copy, which the merge takes for this analysis's
	// by its place (defKeyOf).
	defs := map[*analysis.Node]*analysis.Node{}
	movedDef := func(d *analysis.Node) *analysis.Node {
		if _, isDef := defKeyOf(d); !isDef || d.Decl.URI != p.uri && d.Full.URI != p.uri {
			return nil
		}
		if c := defs[d]; c != nil {
			return c
		}
		c := *d
		var ok1, ok2 bool
		c.Decl, ok1 = m.Span(d.Decl)
		c.Full, ok2 = m.Span(d.Full)
		if !ok1 || !ok2 {
			return nil
		}
		defs[d] = &c
		return &c
	}
	// A node whose parent moved is one too. Siblings come together, so
	// the answer for the last parent is kept: two map lookups per node
	// of every patched run were a third of this function. (No node is
	// its own parent, so one this loop adds never is the kept parent.)
	var lastParent *analysis.Node
	parentMoved := false
	for _, sn := range s.nodes {
		n := sn.n
		if n.Parent == nil {
			continue
		}
		if n.Parent != lastParent {
			lastParent = n.Parent
			parentMoved = moved[n.Parent] != nil || movedDef(n.Parent) != nil
		}
		if parentMoved && moved[n] == nil {
			c := *n
			moved[n] = &c
		}
	}
	for _, c := range moved {
		if p := moved[c.Parent]; p != nil {
			c.Parent = p
		} else if d := movedDef(c.Parent); d != nil {
			c.Parent = d
		}
	}
	return moved, true
}

// factsKey is a slice of facts, which nodes share.
type factsKey struct {
	p *analysis.Fact
	n int
}

// movedSet: the copies of moved nodes, by node.
type movedSet map[*analysis.Node]*analysis.Node

// of is n, or its copy when it moved.
func (mv movedSet) of(n *analysis.Node) *analysis.Node {
	if c := mv[n]; c != nil {
		return c
	}
	return n
}

// edge is e between the nodes as they are now, at its place moved by m
// (a copy when that changed anything); false when its place is gone.
func (mv movedSet) edge(e *analysis.Edge, m analysis.Shift) (*analysis.Edge, bool) {
	from, to := mv.of(e.From), mv.of(e.To)
	at, ok := m.Span(e.At)
	if !ok {
		return nil, false
	}
	if from != e.From || to != e.To || at != e.At {
		c := *e
		c.From, c.To, c.At = from, to, at
		e = &c
	}
	return e, true
}

// movedResult puts into ns the diagnostics, the missing targets' and the
// links' places of s, moved by the edit (the links' targets as in s);
// false when one cannot be moved, or a definition a link points at was.
// A cycle's diagnostic names its resources (Members) as they are now.
func (a *analyzer) movedResult(s, ns *runSnap, p *patchPlan, m analysis.Shift, line func(string, int) int, moved movedSet) bool {
	ns.diags = make([]analysis.Diagnostic, len(s.diags))
	for i, d := range s.diags {
		var ok bool
		if d, ok = analysis.ShiftDiagnostic(d, m, line); !ok {
			a.refuse(28)
			return false
		}
		if len(d.Members) > 0 {
			ms := make([]*analysis.Node, len(d.Members))
			for j, x := range d.Members {
				ms[j] = moved.of(x)
			}
			d.Members = ms
		}
		ns.diags[i] = d
	}
	if len(s.missing) > 0 {
		ns.missing = make([]missingDiag, len(s.missing))
		for i, md := range s.missing {
			d, ok := analysis.ShiftDiagnostic(md.d, m, line)
			if !ok {
				a.refuse(29)
				return false
			}
			if md.ref != nil && md.ref.at.URI == p.uri {
				rf := *md.ref
				if rf.at, ok = m.Span(rf.at); !ok {
					a.refuse(30)
					return false
				}
				md.ref = &rf
			}
			ns.missing[i] = missingDiag{d, md.ref}
		}
	}
	nl := s.linkCount()
	ns.links = snapLinks{at: make([]source.Span, nl), start: s.links.start, tgt: slices.Clone(s.links.tgt)}
	for i := 0; i < nl; i++ {
		var ok bool
		if ns.links.at[i], ok = m.Span(s.linkAt(i)); !ok {
			a.refuse(31)
			return false
		}
	}
	for _, d := range s.defs {
		if d.Decl.URI == p.uri || d.Full.URI == p.uri {
			if sp, _ := m.Span(d.Decl); sp != d.Decl {
				a.refuse(32) // a definition the edit moved: its node is another
				return false
			}
		}
	}
	return true
}

// refreshedVia: whether a refresh edge of s goes to the container whose
// begin anchor is s.nodes[begin] or to one around it (every resource
// they hold is refreshed, and says so: refreshFacts).
func refreshedVia(s *runSnap, np *nodePos, begin int) bool {
	var into map[*analysis.Node]bool
	for _, e := range s.edges {
		if e.Kind == analysis.Refresh {
			if into == nil {
				into = map[*analysis.Node]bool{}
			}
			into[e.To] = true
		}
	}
	if into == nil {
		return false
	}
	isBegin := func(n *analysis.Node) bool {
		i, ok := np.of(n)
		return ok && s.nodes[i].kind == 'A'
	}
	at := s.nodes[begin].n
	for depth := 0; at != nil && depth < 100; depth++ {
		if into[at] {
			return true
		}
		var up *analysis.Node // the container's begin anchor: it contains this one
		for _, e := range s.edges {
			if e.To == at && e.Reason == "contains" && isBegin(e.From) {
				up = e.From
				break
			}
		}
		at = up
	}
	return false
}

// factsName: whether facts name a place of the document uri.
func factsName(fs []analysis.Fact, uri string) bool {
	for _, f := range fs {
		if f.Template != "" && strings.Contains(f.Template, uri) {
			return true
		}
	}
	return false
}

func pn(s *runSnap, i int) *analysis.Node { return s.nodes[i].n }

// refuse counts why a run was not patched (System.PatchRefused, by the
// number of the test that refused it: tests and figures read them).
func (a *analyzer) refuse(why int) *runSnap {
	m := a.main
	m.planMu.Lock()
	if m.refusals == nil {
		m.refusals = map[int]int{}
	}
	m.refusals[why]++
	m.planMu.Unlock()
	return nil
}

// renumbered is places (nil: nil) through f.
func renumbered(places []int32, f func(int32) int32) []int32 {
	if places == nil {
		return nil
	}
	out := make([]int32, len(places))
	for i, v := range places {
		out[i] = f(v)
	}
	return out
}

// runSees says why the run of s may see the plan's resource, 0 when it
// does not: it looked for its key or a reference's pattern matches its
// title (1), a collector would collect it and do what a patch does not
// follow (2), a diagnostic names it or holds a cycle (3), a missing
// target's does (4).
func (p *patchPlan) runSees(s *runSnap) int {
	if _, probed := slices.BinarySearch(s.probes, probeHash(p.key)); probed || p.patternNames(s) {
		return 1
	}
	if _, ok := p.collected(s); !ok {
		return 2
	}
	for _, d := range s.diags {
		if strings.Contains(d.Message, p.display) {
			return 3
		}
	}
	for _, md := range s.missing {
		if strings.Contains(md.d.Message, p.display) {
			return 4
		}
	}
	return 0
}

// cycleTie: whether a cycle of the run starts at a node whose Ref another
// node of the run has. A cycle is printed from its component's lowest
// node by Ref (analysis.Cycles); a resource added off every cycle
// (orderOf's probe) leaves components and paths as they were, but a tie
// for the lowest is broken by the order a walk met the nodes in, which
// the new node may change.
func cycleTie(s *runSnap) bool {
	for _, d := range s.diags {
		if len(d.Members) == 0 {
			continue
		}
		first := d.Members[0]
		for _, sn := range s.nodes {
			if sn.n != first && sn.n.Ref == first.Ref {
				return true
			}
		}
	}
	return false
}

// onCycle: whether the node s.nodes[x] reaches itself by ordering edges
// (the run's, and those only its order reads: snapOrder's locals and
// shared), found by a walk from it.
func onCycle(s *runSnap, np *nodePos, x int) bool {
	out := make([][]int32, len(s.nodes))
	for _, e := range s.edges {
		if !e.Kind.Orders() {
			continue
		}
		f, okf := np.of(e.From)
		t, okt := np.of(e.To)
		if okf && okt {
			out[f] = append(out[f], t)
		}
	}
	if o := s.order; o != nil {
		for _, pairs := range [2][]int32{o.locals, o.shared} {
			for k := 0; k+1 < len(pairs); k += 2 {
				out[pairs[k]] = append(out[pairs[k]], pairs[k+1])
			}
		}
	}
	seen := make([]bool, len(s.nodes))
	stack := []int32{int32(x)}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range out[v] {
			if int(t) == x {
				return true
			}
			if !seen[t] {
				seen[t] = true
				stack = append(stack, t)
			}
		}
	}
	return false
}

// patternNames: whether a reference of the run whose title we cannot
// read may name the plan's resource (its links would gain or lose it).
func (p *patchPlan) patternNames(s *runSnap) bool {
	for _, pr := range s.patRefs {
		typ, glob, _ := strings.Cut(pr, "[")
		if strings.EqualFold(typ, p.typ) && globMatch(strings.TrimSuffix(glob, "]"), p.title) {
			return true
		}
	}
	return false
}

// readsSeen: whether the input k (now v) of a run is a file whose code
// may see the plan's resource (patchPlan.seenIn): a file evaluated ('f',
// by URI; 'F', the main manifest folder's), a class's or a define's
// ('c', 'd': the tree id "uri@address" of the file defining it).
func (p *patchPlan) readsSeen(k depKey, v string) bool {
	if len(p.seenIn) == 0 {
		return false
	}
	uriOf := func(id string) string {
		if i := strings.LastIndexByte(id, '@'); i >= 0 {
			return id[:i]
		}
		return id
	}
	switch k.kind {
	case 'f':
		return p.seenIn[k.name] || p.seenIn[uriOf(v)]
	case 'c', 'd':
		return v != "" && p.seenIn[uriOf(v)]
	case 'F':
		for _, id := range strings.Split(v, "\x00") {
			if id != "" && p.seenIn[uriOf(id)] {
				return true
			}
		}
	}
	return false
}

var keySeed = maphash.MakeSeed()

// keyHash is how a snapshot keeps a key it only asks about (aliases,
// probes): two keys of one hash only refuse a patch that was possible.
func keyHash(k string) uint64 { return maphash.String(keySeed, k) }

// probeHash is keyHash in 4 bytes: a run keeps hundreds (operations-
// puppet: 492k in all), and a collision only refuses a patch.
func probeHash(k string) uint32 { return uint32(keyHash(k)) }
