package puppet

import (
	"fmt"
	"math"
	"slices"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Numbers for what the merge shares between runs (issue 25).
//
// The merge (cache.go) shares a node, an edge or a link between the runs
// of an analysis by its key. Finding each in maps keyed by strings and
// spans was three quarters of an analysis that restored every run
// (operations-puppet: 1.9 s for 1,128 runs, most of it hashing and the
// cache misses of maps of a million keys). So the System keeps a table
// that numbers every key once, and a snapshot keeps the numbers of its
// nodes, edges and links beside it: merging a restored run indexes
// slices instead of hashing keys. Only a run built afresh (or a snapshot
// numbered by an older table) looks its keys up.
//
// A key's number never changes while its table lives. Each edit makes
// keys nobody will ask for again (the spans after it move), so a table
// that holds several times what the last analysis used is dropped for a
// new one; snapshots numbered by the old one are numbered again when
// they are merged.

// mergeIDs is a numbering of node keys (definition nodes included), edge
// keys and link places.
type mergeIDs struct {
	nodes map[nodeKey]int32
	edges map[edgeID]int32
	links map[linkKey]int32
	// ends: the numbered ends of each edge; linkAt: each link's place (a
	// snapshot keeps neither once numbered: 17 MB on operations-puppet)
	ends   [][2]int32
	linkAt []source.Span
	// decl numbers the keys runs declare (Type[title]); declStr holds the
	// first string of each, which every snapshot then shares
	decl    map[string]int32
	declStr []string
	pos     nodePos // number's table of a snapshot's places
}

// nodePos finds a node's place in a list of nodes by its Index: a table
// filled for one list at a time, each entry stamped with the fill it
// belongs to (nothing is cleared between lists). A node whose Index
// another node of the list has too is found only if it was the last
// filled; the caller asks a map then.
type nodePos struct {
	at    []int32
	stamp []uint32
	cur   uint32
	nodes []snapNode
}

func (np *nodePos) fill(nodes []snapNode) {
	np.cur++
	np.nodes = nodes
	for i, sn := range nodes {
		x := sn.n.Index
		if x < 0 {
			continue
		}
		if x >= len(np.at) {
			size := 2*x + 64
			np.at = append(np.at, make([]int32, size-len(np.at))...)
			np.stamp = append(np.stamp, make([]uint32, size-len(np.stamp))...)
		}
		np.at[x], np.stamp[x] = int32(i), np.cur
	}
}

func (np *nodePos) of(n *analysis.Node) (int32, bool) {
	x := n.Index
	if x >= 0 && x < len(np.at) && np.stamp[x] == np.cur {
		if i := np.at[x]; np.nodes[i].n == n {
			return i, true
		}
	}
	return -1, false
}

// edgeID is an edge's key with its ends numbered: a node's number stands
// for the node an analysis made for it.
type edgeID struct {
	from, to int32
	kind     analysis.EdgeKind
	at       source.Span
}

func newMergeIDs() *mergeIDs {
	return &mergeIDs{nodes: map[nodeKey]int32{}, edges: map[edgeID]int32{}, links: map[linkKey]int32{}, decl: map[string]int32{}}
}

// numberOf returns k's number in m, giving it the next one (isNew) when
// it has none.
func numberOf[K comparable](m map[K]int32, k K) (id int32, isNew bool) {
	if id, ok := m[k]; ok {
		return id, false
	}
	id = int32(len(m))
	m[k] = id
	return id, true
}

func (t *mergeIDs) declared(k string) int32 {
	id, isNew := numberOf(t.decl, k)
	if isNew {
		t.declStr = append(t.declStr, k)
	}
	return id
}

func (t *mergeIDs) node(k nodeKey) int32 {
	id, _ := numberOf(t.nodes, k)
	return id
}

func (t *mergeIDs) edge(k edgeID) int32 {
	id, isNew := numberOf(t.edges, k)
	if isNew {
		t.ends = append(t.ends, [2]int32{k.from, k.to})
	}
	return id
}

func (t *mergeIDs) link(at source.Span) int32 {
	id, isNew := numberOf(t.links, linkKey{at.URI, at.Start, at.End})
	if isNew {
		t.linkAt = append(t.linkAt, at)
	}
	return id
}

// stale: the table holds so many more keys than the last analysis used
// that a new one is cheaper to keep.
func (t *mergeIDs) stale(nodes, edges, links int) bool {
	return len(t.nodes) > 3*nodes+100_000 || len(t.edges) > 3*edges+300_000 || len(t.links) > 3*links+300_000 ||
		len(t.declStr) > 3*nodes+100_000
}

// snapIDs are a snapshot's numbers in one table. A node a snapshot names
// (an edge's end, a step's) is a ref: >= 0 the index of one of its own
// nodes, < 0 the definition node numbered -1-ref, noRef none.
type snapIDs struct {
	tab  *mergeIDs
	node []int32 // nodes[i]'s key (a shared anchor's: anchorKey)
	edge []int32 // edges[i]'s key; -1: an end is nil
	// from, to: edges[i]'s ends, while the merge that numbered them runs
	// (a snapshot kept finds them in the table: tab.ends)
	from, to []int32
	step     []int32 // run.Steps[i].Node
	link     []int32 // links.at[i]; -1: a zero span (no link)
	def      []int32 // defs[i]
	declared []int32 // declared[i]
	// foreign: an end that is neither a node of the run nor a definition
	// node was numbered by its address, which only holds in this analysis
	foreign bool
}

const noRef = math.MinInt32

// number gives snapshot s of the run named name its numbers in t. like
// is the run's previous snapshot, if t numbered it: a run built again
// after an edit makes nearly the same nodes, edges, links and keys in
// nearly the same order, so each is first compared with the one at the
// same place there (a few string comparisons) before its key is looked
// up (hashing strings and spans into maps of a hundred thousand keys:
// numbering the 300 runs an edit in profile::base rebuilds cost 1.8
// CPU-s that way).
func (t *mergeIDs) number(name string, s, like *runSnap) *snapIDs {
	if like != nil && (like.ids == nil || like.ids.tab != t) {
		like = nil
	}
	ids := &snapIDs{tab: t, node: make([]int32, len(s.nodes))}
	var old snapIDs // the previous snapshot's numbers, when t gave them
	if like != nil {
		old = *like.ids
	}
	along(ids.node, old.node, func(i, j int) bool {
		if s.nodes[i] == like.nodes[j] { // (a patched run keeps the nodes nothing moved)
			return true
		}
		k, _ := anchorKey(s.nodes[i].key(name))
		lk, _ := anchorKey(like.nodes[j].key(name))
		return k == lk
	}, func(i int) int32 {
		k, _ := anchorKey(s.nodes[i].key(name))
		return t.node(k)
	})
	var at map[*analysis.Node]int32 // the nodes by address, once an Index does not tell
	byIndex := false                // t.pos holds the snapshot's places by its nodes' Index
	ref := func(n *analysis.Node) int32 {
		if n == nil {
			return noRef
		}
		if n.Index >= 0 && n.Index < len(s.nodes) && s.nodes[n.Index].n == n {
			return int32(n.Index)
		}
		if k, ok := defKeyOf(n); ok {
			return -1 - t.node(k)
		}
		// A merged snapshot's nodes carry the Index of the analysis
		// that merged them: a table by Index finds them without hashing
		// addresses (a map per run was a third of numbering a patched
		// run); the address map is for the rest.
		if !byIndex {
			byIndex = true
			t.pos.fill(s.nodes)
		}
		if i, ok := t.pos.of(n); ok {
			return i
		}
		if at == nil {
			at = make(map[*analysis.Node]int32, len(s.nodes))
			for i, sn := range s.nodes {
				at[sn.n] = int32(i)
			}
		}
		if i, ok := at[n]; ok {
			return i
		}
		ids.foreign = true
		return -1 - t.node(nodeKey{kind: '?', ref: fmt.Sprintf("%p", n)})
	}
	id := func(r int32) int32 {
		if r >= 0 {
			return ids.node[r]
		}
		return -1 - r
	}
	ids.edge = make([]int32, len(s.edges))
	ids.from = make([]int32, len(s.edges))
	ids.to = make([]int32, len(s.edges))
	for i, e := range s.edges {
		ids.from[i], ids.to[i] = ref(e.From), ref(e.To)
		if ids.from[i] == noRef || ids.to[i] == noRef {
			ids.edge[i] = -1
		}
	}
	key := func(i int) edgeID {
		return edgeID{id(ids.from[i]), id(ids.to[i]), s.edges[i].Kind, s.edges[i].At}
	}
	along(ids.edge, old.edge, func(i, j int) bool {
		if s.edges[i] == like.edges[j] { // (the same ends: the same numbers)
			return true
		}
		k, le := key(i), like.edges[j]
		return t.ends[old.edge[j]] == [2]int32{k.from, k.to} && le.Kind == k.kind && le.At == k.at
	}, func(i int) int32 { return t.edge(key(i)) })
	ids.step = make([]int32, len(s.run.Steps))
	for i, st := range s.run.Steps {
		ids.step[i] = ref(st.Node)
	}
	ids.link = make([]int32, s.linkCount())
	for i := range ids.link {
		if s.linkAt(i).IsZero() {
			ids.link[i] = -1
		}
	}
	along(ids.link, old.link, func(i, j int) bool { return t.linkAt[old.link[j]] == s.linkAt(i) },
		func(i int) int32 { return t.link(s.linkAt(i)) })
	ids.declared = make([]int32, len(s.declared))
	along(ids.declared, old.declared, func(i, j int) bool { return t.declStr[old.declared[j]] == s.declared[i] },
		func(i int) int32 { return t.declared(s.declared[i]) })
	ids.def = make([]int32, len(s.defs))
	for i, d := range s.defs {
		if i < len(old.def) && like.defs[i] == d {
			ids.def[i] = old.def[i]
			continue
		}
		ids.def[i] = -1 - ref(d)
	}
	return ids
}

// along numbers the items of a new list (out; -1: an item without a
// number, skipped) beside the numbers old of the same list in the run's
// previous snapshot: item i takes old[j], the next old one, when same(i,
// j) says it is that one, else look(i) looks it up in the table. An item
// the old list lacks keeps the place; old ones the new list lacks (up to
// alongSkip in a row: a title typed over replaces a resource's two
// containment edges) are stepped over when the item looked up is the one
// after them. (Stepping over one only, a retitled resource looked every
// edge after it up: 1.1M of operations-puppet's 1.3M, 0.4 s.)
func along(out, old []int32, same func(i, j int) bool, look func(i int) int32) {
	j := 0
	for i := range out {
		if out[i] == -1 {
			continue
		}
		if j < len(old) && old[j] >= 0 && same(i, j) {
			out[i] = old[j]
			j++
			continue
		}
		out[i] = look(i)
		for d := 1; d <= alongSkip && j+d < len(old); d++ {
			if old[j+d] == out[i] {
				j += d + 1
				break
			}
		}
	}
}

const alongSkip = 8

// mergeState is what one analysis has merged, by number: the node made
// for each node key (and the definition node of each definition key),
// the edge for each edge key, the place in linkArr of each link.
type mergeState struct {
	tab      *mergeIDs
	nodes    []*analysis.Node
	edges    []*analysis.Edge
	links    []int32 // index+1 into linkArr; 0: none yet
	defsFor  int     // len(a.defNodes) when definition nodes were last numbered
	seen     map[int32]map[*analysis.Node]bool
	parents  map[*analysis.Node]*analysis.Node // an earlier analysis's definition nodes -> this one's
	declared []bool                            // a run merged declares the key numbered so
}

// mergeTable returns what this analysis numbers with: the System's
// (taken while the analysis runs, so two analyses never write one
// table), or for an analysis nothing follows, one of its own.
func (a *analyzer) mergeTable() *mergeState {
	if a.ms != nil {
		return a.ms
	}
	var t *mergeIDs
	if !a.req.Once {
		s := a.sys
		s.mu.Lock()
		t, s.ids = s.ids, nil
		s.mu.Unlock()
		if t != nil && (s.Renumber || t.stale(s.lastLive[0], s.lastLive[1], s.lastLive[2])) {
			t = nil
		}
	}
	if t == nil {
		t = newMergeIDs()
	}
	a.ms = &mergeState{tab: t, parents: map[*analysis.Node]*analysis.Node{}}
	return a.ms
}

// keepMergeTable hands the table back to the System for the next
// analysis, with what this one used of it when it merged every run
// (a focused analysis uses a few runs' worth: the table is not stale).
func (a *analyzer) keepMergeTable(complete bool) {
	if a.ms == nil || a.req.Once {
		return
	}
	s := a.sys
	s.mu.Lock()
	s.ids = a.ms.tab
	if complete {
		s.lastLive = [3]int{len(a.graph.Nodes), len(a.graph.Edges), len(a.linkArr)}
	}
	s.mu.Unlock()
}

// grow makes room for every number the table has given.
func (m *mergeState) grow() {
	if n := len(m.tab.nodes); n > len(m.nodes) {
		m.nodes = append(m.nodes, make([]*analysis.Node, n-len(m.nodes))...)
	}
	if n := len(m.tab.edges); n > len(m.edges) {
		m.edges = append(m.edges, make([]*analysis.Edge, n-len(m.edges))...)
	}
	if n := len(m.tab.links); n > len(m.links) {
		m.links = append(m.links, make([]int32, n-len(m.links))...)
	}
	if n := len(m.tab.declStr); n > len(m.declared) {
		m.declared = append(m.declared, make([]bool, n-len(m.declared))...)
	}
}

// isDeclared: a run merged so far declares key.
func (m *mergeState) isDeclared(key string) bool {
	id, ok := m.tab.decl[key]
	return ok && m.declared[id]
}

// numberDefs puts the analysis's definition nodes under their numbers
// (again when a file loaded since added some).
func (a *analyzer) numberDefs(m *mergeState) {
	if len(a.defNodes) == m.defsFor {
		return
	}
	m.defsFor = len(a.defNodes)
	for k, n := range a.defNodes {
		id := m.tab.node(k)
		m.grow()
		if m.nodes[id] == nil {
			m.nodes[id] = n
		}
	}
}

// upTo copies ids with the numbers of the first j edges: a merge that
// drops an edge (an end this analysis no longer has) keeps numbers for
// the edges it kept (keepEdge), in the order of the snapshot it keeps.
func (ids *snapIDs) upTo(j int) *snapIDs {
	c := *ids
	c.edge = slices.Clone(ids.edge[:j])
	c.from = slices.Clone(ids.from[:j])
	c.to = slices.Clone(ids.to[:j])
	return &c
}

// keepEdge appends the numbers of edge j of ids.
func (c *snapIDs) keepEdge(ids *snapIDs, j int) {
	c.edge = append(c.edge, ids.edge[j])
	c.from = append(c.from, ids.from[j])
	c.to = append(c.to, ids.to[j])
}

// linkCount is the number of a snapshot's links.
func (s *runSnap) linkCount() int {
	return max(0, len(s.links.start)-1)
}

// linksWithout is the snapshot's links but those drop says go.
func (s *runSnap) linksWithout(drop func(i int) bool) snapLinks {
	nl := s.linkCount()
	ls := snapLinks{at: make([]source.Span, 0, nl), start: make([]int32, 1, nl+1), tgt: make([]int32, 0, len(s.links.tgt))}
	for i := 0; i < nl; i++ {
		if !drop(i) {
			ls.at = append(ls.at, s.linkAt(i))
			ls.tgt = append(ls.tgt, s.links.tgt[s.links.start[i]:s.links.start[i+1]]...)
			ls.start = append(ls.start, int32(len(ls.tgt)))
		}
	}
	return ls
}

// linkAt is where a snapshot's link i is: in the snapshot until it is
// numbered, then in the table that numbered it (-1: a zero span).
func (s *runSnap) linkAt(i int) source.Span {
	if s.links.at != nil {
		return s.links.at[i]
	}
	if id := s.ids.link[i]; id >= 0 {
		return s.ids.tab.linkAt[id]
	}
	return source.Span{}
}

// kept is ids as a snapshot keeps them: without what the table holds.
func (ids *snapIDs) kept() *snapIDs {
	if ids.from == nil {
		return ids
	}
	c := *ids
	c.from, c.to = nil, nil
	return &c
}
