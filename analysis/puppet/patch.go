package puppet

import (
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// snapOrder is what a run's order is computed from, kept with its
// snapshot so that the order can be computed again from the snapshot:
// which of its nodes the order holds (a define instance's node and a
// declared stage's are shown but not ordered) and the edges the order
// reads that the analysis's graph does not hold (localEdge: the implicit
// containers Stage[main] and Class[main]), as numbers of the snapshot's
// nodes. Every other ordering edge is in the snapshot's edges; a node's
// priority is its place in the snapshot (buildRun makes the nodes in
// catalog order, a container's anchors side by side), which
// TestSnapOrderIsTheRunsOrder holds to every fixture's runs.
//
// Two nodes of one run with the same key (pattern resources `File[$path]`
// declared at one place by two define instances) are one node once
// merged, and so are their edges: the ordering edges at such nodes are
// kept as numbers too (shared), and orderOf reads those instead.
type snapOrder struct {
	ordered []uint64 // bit i: s.nodes[i] is in the order
	locals  []int32  // from, to pairs
	shared  []int32  // from, to pairs: the edges at nodes whose key another node has
	// ends: (a class's begin anchor, the place of the first node made
	// after its body was evaluated, how many keys the run had declared
	// then) triples; the place is len(nodes) when no node came after.
	// endFacts: for each, the facts a resource written at the top of the
	// class's body has (the condition it is declared under, when nobody
	// decides it)
	ends     []int32
	endFacts [][]analysis.Fact
	// the undecided conditionals' arms under which a node is declared
	// (condSets.res; a class's for each of ends: what a resource at the
	// top of its body has), as (point, arm) pairs: a patch asks whether
	// the target of a relationship it adds may be missing (absentWhen).
	// Nodes share their sets: each set is kept once (a node's entry is 8
	// bytes: operations-puppet's runs hold ~450k conditional nodes).
	conds    []nodeConds
	endConds []int32 // for each of ends: 1 + its set's place in condSets (0: none)
	condSets [][]uint64
	// seq: the places in the order Kahn's algorithm took them, once
	// orderOf computed it (packSeq; nodes left over on a cycle are not in
	// it); nil: not known (a run built, or one whose order a patch did
	// not compute)
	seq []byte
	// hole: a resource taken out to be replaced; only in the snapshot
	// between the two patches (patchorder.go)
	hole *seqHole
}

// nodeConds: the set of branches of s.nodes[i] (sorted by i in
// snapOrder.conds), a place in condSets.
type nodeConds struct{ i, set int32 }

// condSetOf is the place in o.condSets of the branches bs (added when
// new; keys: by slice, as nodes share their sets), -1 for none.
func (o *snapOrder) condSetOf(bs []*branch, keys map[branchSlice]int32) int32 {
	if len(bs) == 0 {
		return -1
	}
	k := branchSlice{&bs[0], len(bs)}
	if at, ok := keys[k]; ok {
		return at
	}
	out := make([]uint64, len(bs))
	for i, b := range bs {
		out[i] = packBranch(b)
	}
	o.condSets = append(o.condSets, out)
	keys[k] = int32(len(o.condSets) - 1)
	return keys[k]
}

// branchSlice is a slice of branches by its first element and length.
type branchSlice struct {
	p *(*branch)
	n int
}

// condsOf is the branches of s.nodes[i] (none: declared under no
// undecided conditional).
func (o *snapOrder) condsOf(i int) []uint64 {
	k, ok := slices.BinarySearchFunc(o.conds, int32(i), func(c nodeConds, i int32) int { return int(c.i - i) })
	if !ok {
		return nil
	}
	return o.condSets[o.conds[k].set]
}

// endCondsOf is the branches of the class of ends entry cls.
func (o *snapOrder) endCondsOf(cls int) []uint64 {
	if cls >= len(o.endConds) || o.endConds[cls] == 0 {
		return nil
	}
	return o.condSets[o.endConds[cls]-1]
}

func packBranch(b *branch) uint64 { return uint64(uint32(b.point))<<32 | uint64(uint32(b.arm)) }

// armsConflict: whether two sets of branches take different arms of one
// conditional (absentWhen's test).
func armsConflict(have, need []uint64) bool {
	for _, h := range have {
		for _, n := range need {
			if h>>32 == n>>32 && h != n {
				return true
			}
		}
	}
	return false
}

func (o *snapOrder) has(i int) bool { return o.ordered[i>>6]&(1<<(i&63)) != 0 }

// keepOrder records the run's snapOrder in the snapshot just made; seq
// is the order toposort took g's nodes in (nil: none computed).
func (a *analyzer) keepOrder(g *runGraph, seq []*analysis.Node) {
	s := a.lastSnap
	if s == nil || a.ordering != "manifest" || a.req.Once {
		return // (a one-shot analysis keeps no snapshot for the next)
	}
	o := &snapOrder{ordered: make([]uint64, (len(s.nodes)+63)/64)}
	keys := map[branchSlice]int32{}
	in := func(n *analysis.Node) (int, bool) {
		i := n.Index
		return i, i >= 0 && i < len(s.nodes) && s.nodes[i].n == n
	}
	// declaredBy[k]: the keys declared by the resources that made
	// g.nodes[:k] (buildRun's runDeclared: one per resource of a known
	// title, in catalog order)
	declaredBy := make([]int32, len(g.nodes)+1)
	var last *res
	for k, x := range g.owner {
		declaredBy[k+1] = declaredBy[k]
		if x != last && !x.pat {
			declaredBy[k+1]++
		}
		last = x
	}
	for k, n := range g.nodes {
		i, ok := in(n)
		if !ok {
			return // not one of the run's own nodes: no order kept
		}
		o.ordered[i>>6] |= 1 << (i & 63)
		if x := g.owner[k]; x != nil && x.class != nil && x.begin == n && x.resMore != nil && x.bodyEnd != 0 {
			j := sort.Search(len(g.prio), func(j int) bool { return g.prio[j].p > x.bodyEnd })
			at := len(s.nodes)
			if j < len(g.nodes) {
				if at, ok = in(g.nodes[j]); !ok {
					return
				}
			}
			o.ends = append(o.ends, int32(i), int32(at), declaredBy[j])
			var fs []analysis.Fact
			if x.spec && !a.hoverUnread() {
				fs = g.condFact(a, x) // (what buildRun gives such a resource)
			}
			o.endFacts = append(o.endFacts, fs)
			set := int32(-1)
			if g.r.points > 0 {
				set = o.condSetOf(g.conds.res(x), keys)
			}
			o.endConds = append(o.endConds, set+1)
		}
		if x := g.owner[k]; x != nil && g.r.points > 0 && x.node == n && !x.containerish() {
			if set := o.condSetOf(g.conds.res(x), keys); set >= 0 {
				o.conds = append(o.conds, nodeConds{int32(i), set})
			}
		}
	}
	slices.SortFunc(o.conds, func(x, y nodeConds) int { return int(x.i - y.i) })
	o.locals = make([]int32, 0, 2*len(g.locals))
	for _, e := range g.locals {
		f, okf := in(e.From)
		t, okt := in(e.To)
		if !okf || !okt {
			return
		}
		o.locals = append(o.locals, int32(f), int32(t))
	}
	// nodes whose key another of the run's nodes has
	// (only a title we do not know can be declared twice at one place:
	// its display has a `$` or a `*`)
	var twice map[int]bool
	var seen map[nodeKey]int
	for i, sn := range s.nodes {
		if !strings.ContainsAny(sn.n.Ref, "$*") {
			continue
		}
		if seen == nil {
			seen = map[nodeKey]int{}
		}
		k := sn.key(s.run.Name)
		if j, ok := seen[k]; ok {
			if twice == nil {
				twice = map[int]bool{}
			}
			twice[i], twice[j] = true, true
			continue
		}
		seen[k] = i
	}
	if twice != nil {
		for _, e := range s.edges {
			if !e.Kind.Orders() || e.From == e.To {
				continue
			}
			f, okf := in(e.From)
			t, okt := in(e.To)
			if okf && okt && (twice[f] || twice[t]) {
				o.shared = append(o.shared, int32(f), int32(t))
			}
		}
	}
	// The sequence as places: orderOf's on the snapshot, which the next
	// patch puts its node into (TestSnapOrderIsTheRunsOrder holds both
	// to be the same).
	if seq != nil {
		places := make([]int32, len(seq))
		for k, n := range seq {
			i, ok := in(n)
			if !ok {
				places = nil
				break
			}
			places[k] = int32(i)
		}
		if places != nil {
			o.seq = packSeq(places)
		}
	}
	s.order = o
}

// orderOf computes the steps of the run of s again from its nodes, its
// edges and its snapOrder, as buildRun's toposort does: Kahn's algorithm,
// the lowest place first; the nodes left (a cycle) after, by place.
// Nil when the snapshot kept no order. onCycle: whether the node at
// place probe (-1: none) is on a cycle (a run may hold cycles nobody
// reports: their edges are made under conditions no node meets at once;
// cycles, feasibleCycles).
func orderOf(s *runSnap, edges []*analysis.Edge, sc *runScratch, probe int) (steps []analysis.Step, onCycle bool) {
	o := s.order
	if o == nil {
		return nil, false
	}
	n := len(s.nodes)
	// (a merged snapshot's nodes are the analysis's, numbered there: they
	// are found by their Index, and by address the few that share one)
	if sc == nil {
		sc = &runScratch{}
	}
	np := &sc.pos
	np.fill(s.nodes)
	var twice map[*analysis.Node]bool // two of the run's nodes: see o.shared
	var other map[*analysis.Node]int32
	for i, sn := range s.nodes {
		if !o.has(i) {
			continue
		}
		j, ok := np.of(sn.n)
		switch {
		case ok && int(j) == i:
		case ok && o.has(int(j)):
			if twice == nil {
				twice = map[*analysis.Node]bool{}
			}
			twice[sn.n] = true
		default: // (its Index is another's, or its other place is not ordered)
			if other == nil {
				other = map[*analysis.Node]int32{}
			}
			if _, seen := other[sn.n]; seen {
				other[sn.n] = -2
				continue
			}
			other[sn.n] = int32(i)
		}
	}
	index := func(x *analysis.Node) int {
		if twice[x] {
			return -2
		}
		if i, ok := np.of(x); ok && o.has(int(i)) {
			return int(i)
		}
		if i, ok := other[x]; ok {
			return int(i)
		}
		return -2
	}
	indeg := sc.intBuf(0, n)
	head := sc.intBuf(1, n)
	for i := range head {
		head[i] = -1
	}
	m := len(edges) + (len(o.locals)+len(o.shared))/2
	next, to := sc.intBuf(2, m)[:0], sc.intBuf(3, m)[:0]
	add := func(f, t int) {
		to = append(to, int32(t))
		next = append(next, head[f])
		head[f] = int32(len(to) - 1)
		indeg[t]++
	}
	for _, e := range edges {
		if !e.Kind.Orders() || e.From == e.To {
			continue
		}
		f, t := index(e.From), index(e.To)
		if f < 0 || t < 0 {
			continue // not ordered here, or at a shared node (below)
		}
		add(f, t)
	}
	for _, pairs := range [2][]int32{o.locals, o.shared} {
		for k := 0; k+1 < len(pairs); k += 2 {
			if f, t := int(pairs[k]), int(pairs[k+1]); f != t {
				add(f, t)
			}
		}
	}
	h := minHeap{}
	for i := 0; i < n; i++ {
		if o.has(i) && indeg[i] == 0 {
			h.push(int32(i))
		}
	}
	done := reuse(sc.done, n)[:n]
	clear(done)
	sc.done = done
	emit := func(i int32) {
		if x := s.nodes[i].n; !x.Hidden {
			steps = append(steps, analysis.Step{Node: x, Label: x.Ref})
		}
	}
	seq := sc.seq[:0] // (kept for the next patch: patchorder.go)
	for len(h) > 0 {
		v := h.pop()
		done[v] = true
		seq = append(seq, v)
		emit(v)
		for k := head[v]; k >= 0; k = next[k] {
			t := to[k]
			indeg[t]--
			if indeg[t] == 0 {
				h.push(t)
			}
		}
	}
	sc.seq = seq
	o.seq = packSeq(seq)
	for i := 0; i < n; i++ {
		if o.has(i) && !done[i] {
			emit(int32(i))
		}
	}
	if probe >= 0 && probe < n && !done[probe] {
		// (left over: on a cycle, or after one; a cycle through it is
		// made of nodes left over alone, which done now marks as seen)
		stack := []int32{int32(probe)}
		for len(stack) > 0 && !onCycle {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for k := head[v]; k >= 0; k = next[k] {
				switch t := to[k]; {
				case t == int32(probe):
					onCycle = true
				case !done[t]:
					done[t] = true
					stack = append(stack, t)
				}
			}
		}
	}
	return steps, onCycle
}

// minHeap of node places.
type minHeap []int32

func (h *minHeap) push(x int32) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	s := *h
	x := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		j := l
		if r := l + 1; r < len(s) && s[r] < s[l] {
			j = r
		}
		if s[i] <= s[j] {
			break
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
	*h = s
	return x
}
