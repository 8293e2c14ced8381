package puppet

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The order of one run, as Puppet computes it: its topological sort
// (priority by manifest order or title hash, the heap of ready nodes), the
// cycles it reports when nodes are left, and the path it prints for each.

// cycles reports every dependency cycle as Puppet does, once, on the
// relationship that closes it, with the other edges as related entries.
func (a *analyzer) cycles(g *runGraph, stuck []*analysis.Node) {
	keys := make(map[*analysis.Node]string, len(stuck)) // asked for the cycles' nodes only
	sortKey := func(n *analysis.Node) string {
		if k, ok := keys[n]; ok {
			return k
		}
		k := n.Ref
		if n.Hidden {
			x := g.ownerOf(n)
			if x != nil && n == x.begin {
				k = "Whit[admissible_" + n.Ref + "]"
			} else {
				k = "Whit[completed_" + n.Ref + "]"
			}
		}
		keys[n] = k
		return k
	}
	orderEdges := reuse(g.sc.orderEdges, len(g.edges)) // nearly all of them
	defer func() {
		clear(orderEdges)
		g.sc.orderEdges = orderEdges[:0]
	}()
	for _, e := range g.edges {
		if e.Kind.Orders() {
			orderEdges = append(orderEdges, e)
		}
	}
	nodes, world := g.cycleWorld(orderEdges, stuck)
	cyc := g.feasibleCycles(nodes, world, func(p, q *analysis.Node) bool { return sortKey(p) < sortKey(q) })
	if len(cyc) == 0 {
		return
	}
	head := fmt.Sprintf("Found %d dependency cycle:", len(cyc))
	if len(cyc) > 1 {
		head = fmt.Sprintf("Found %d dependency cycles:", len(cyc))
	}
	var full *adjacency
	for _, cc := range cyc {
		adj := full
		if len(cc.World) != len(world) {
			adj = newAdjacency(cc.World)
		} else if full == nil {
			full = newAdjacency(world)
			adj = full
		}
		c := puppetPath(cc.Path, adj)
		ns := analysis.CycleNodes(c)
		names := make([]string, len(ns))
		for i, n := range ns {
			names[i] = n.Ref
		}
		msg := head + "\n(" + strings.Join(names, " => ") + ")"
		sev := analysis.Error
		if len(cc.When) > 0 {
			// Only some runs take the branches it needs: Puppet refuses
			// those runs only.
			sev = analysis.Warning
			msg += "\nwhen " + whenText(branches(cc.When))
		}
		d := analysis.CycleDiagnostic(c, sev, "cycle", msg, func(e *analysis.Edge) string {
			return fmt.Sprintf("%s => %s (%s)", e.From.Ref, e.To.Ref, e.Reason)
		})
		g.r.diag(d.At, d.Severity, d.Code, d.Message, d.Related...)
		g.r.diags[len(g.r.diags)-1].Members = d.Members
		if sev == analysis.Error {
			g.hardCycle = true
		}
	}
}

// cycleWorld is the part of a run a cycle can lie in: what the sort left
// unplaced and what has a relationship with itself, with everything they
// reach (a path Puppet prints walks from a cycle's node, so it only sees
// what that node reaches), and the order edges leaving it, in the run's
// order. A run that includes one cyclic class searched its whole graph
// of thousands of nodes for it; the cycles and paths found are the same.
func (g *runGraph) cycleWorld(edges []*analysis.Edge, stuck []*analysis.Node) ([]*analysis.Node, []*analysis.Edge) {
	// Nodes of the run by position; the rare edge leaving a node outside
	// the run goes through a map.
	n := len(g.nodes)
	in := make([]bool, n)
	head := make([]int32, n)
	for i := range head {
		head[i] = -1
	}
	next := make([]int32, len(edges))
	var away map[*analysis.Node][]*analysis.Edge
	inAway := map[*analysis.Node]bool{}
	var queue []*analysis.Node
	reach := func(x *analysis.Node) {
		if i := g.local(x); i >= 0 {
			if !in[i] {
				in[i] = true
				queue = append(queue, x)
			}
		} else if !inAway[x] {
			inAway[x] = true
			queue = append(queue, x)
		}
	}
	for k, e := range edges {
		if i := g.local(e.From); i >= 0 {
			next[k] = head[i]
			head[i] = int32(k)
		} else {
			if away == nil {
				away = map[*analysis.Node][]*analysis.Edge{}
			}
			away[e.From] = append(away[e.From], e)
		}
	}
	for _, x := range stuck {
		reach(x)
	}
	for _, e := range edges {
		if e.From == e.To {
			reach(e.From)
		}
	}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if i := g.local(x); i >= 0 {
			for k := head[i]; k >= 0; k = next[k] {
				reach(edges[k].To)
			}
		} else {
			for _, e := range away[x] {
				reach(e.To)
			}
		}
	}
	var nodes []*analysis.Node
	for i, x := range g.nodes {
		if in[i] {
			nodes = append(nodes, x)
		}
	}
	var world []*analysis.Edge
	for _, e := range edges {
		if i := g.local(e.From); (i >= 0 && in[i]) || (i < 0 && inAway[e.From]) {
			world = append(world, e)
		}
	}
	return nodes, world
}

// where names a place as `file:line` in a template: the line is a mark
// (analysis.LineMark) that lines writes out, so a comment typed above
// it moves the words instead of asking for a new analysis.
func (a *analyzer) where(at source.Span) string {
	k := whereKey{at.URI, at.Start}
	if w, ok := a.memo.wheres.Load(k); ok {
		return w.(string)
	}
	w := a.displayPath(at.URI) + ":" + analysis.LineMark(at)
	a.memo.wheres.Store(k, w)
	return w
}

// lines writes a template's line marks (where, analysis.LineMark) out.
func (a *analyzer) lines(tmpl string) string {
	return analysis.Lines(tmpl, func(uri string, off int) int {
		return a.line(source.Span{URI: uri, Start: off})
	})
}

// adjacency lists a run's ordering edges by their ends.
type adjacency struct {
	out, in map[*analysis.Node][]*analysis.Edge
}

func newAdjacency(edges []*analysis.Edge) *adjacency {
	j := &adjacency{out: map[*analysis.Node][]*analysis.Edge{}, in: map[*analysis.Node][]*analysis.Edge{}}
	for _, e := range edges {
		j.out[e.From] = append(j.out[e.From], e)
		j.in[e.To] = append(j.in[e.To], e)
	}
	return j
}

// puppetPath re-walks a cycle the way Puppet prints it (paths_in_cycle):
// a breadth-first search from the component's first vertex that stops at
// the first vertex seen twice on a path, which need not be the start.
// Paths are kept as a tree of frames (each knows the one it extends), so
// a frame costs its own size, not a copy of its path.
func puppetPath(c []*analysis.Edge, j *adjacency) []*analysis.Edge {
	if len(c) == 0 {
		return c
	}
	start := c[0].From
	reach := func(adj map[*analysis.Node][]*analysis.Edge, fwd bool) map[*analysis.Node]bool {
		seen := map[*analysis.Node]bool{start: true}
		q := []*analysis.Node{start}
		for len(q) > 0 {
			v := q[0]
			q = q[1:]
			for _, e := range adj[v] {
				w := e.To
				if !fwd {
					w = e.From
				}
				if !seen[w] {
					seen[w] = true
					q = append(q, w)
				}
			}
		}
		return seen
	}
	f, b := reach(j.out, true), reach(j.in, false)
	type frame struct {
		v      *analysis.Node
		parent int32 // the frame this one extends, -1 for the start
		e      *analysis.Edge
	}
	q := []frame{{v: start, parent: -1}}
	for head, steps := 0, 0; head < len(q) && steps < 100000; head, steps = head+1, steps+1 {
		fr := q[head]
		// Is the vertex already on the path that led here?
		for p := fr.parent; p >= 0; p = q[p].parent {
			if q[p].v == fr.v {
				// The path starts at the start vertex and ends at the
				// repeated one, as Puppet's does.
				var path []*analysis.Edge
				for k := int32(head); q[k].parent >= 0; k = q[k].parent {
					path = append(path, q[k].e)
				}
				slices.Reverse(path)
				return path
			}
		}
		for _, e := range j.out[fr.v] {
			if f[e.To] && b[e.To] {
				q = append(q, frame{v: e.To, parent: int32(head), e: e})
			}
		}
	}
	return c
}

// toposort is analysis.Toposort (Kahn, lowest priority first) on the
// run's positions: no maps keyed by node on the hot path. Without order
// (a check's runs, whose steps nobody reads) it lists only what is stuck,
// which is the same set whatever the order Kahn takes nodes in, sorted
// the same way: a stack, not the heap of priorities (its pushes and pops
// were half of the toposorts of a check of operations-puppet).
func (g *runGraph) toposort(withOrder bool) (order, stuck []*analysis.Node) {
	n := len(g.nodes)
	indeg := g.sc.intBuf(0, n)
	head := g.sc.intBuf(1, n)
	for i := range head {
		head[i] = -1
	}
	next := g.sc.intBuf(2, len(g.edges))[:0]
	to := g.sc.intBuf(3, len(g.edges))[:0]
	for _, e := range g.edges {
		if !e.Kind.Orders() || e.From == e.To {
			continue
		}
		f, t := g.local(e.From), g.local(e.To)
		if f < 0 || t < 0 {
			continue
		}
		to = append(to, t)
		next = append(next, head[f])
		head[f] = int32(len(to) - 1)
		indeg[t]++
	}
	h := idxHeap{g: g}
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			h.items = append(h.items, int32(i))
		}
	}
	done := reuse(g.sc.done, n)[:n]
	clear(done)
	g.sc.done = done
	emitted := 0
	if withOrder {
		h.init()
		order = make([]*analysis.Node, 0, n)
		for len(h.items) > 0 {
			v := h.pop()
			done[v] = true
			order = append(order, g.nodes[v])
			for k := head[v]; k >= 0; k = next[k] {
				t := to[k]
				indeg[t]--
				if indeg[t] == 0 {
					h.push(t)
				}
			}
		}
		emitted = len(order)
	} else {
		queue := h.items
		for len(queue) > 0 {
			v := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			done[v] = true
			emitted++
			for k := head[v]; k >= 0; k = next[k] {
				t := to[k]
				indeg[t]--
				if indeg[t] == 0 {
					queue = append(queue, t)
				}
			}
		}
	}
	if emitted < n {
		var idx []int32
		for i := range g.nodes {
			if !done[i] {
				idx = append(idx, int32(i))
			}
		}
		sort.SliceStable(idx, func(i, j int) bool { return g.less(idx[i], idx[j]) })
		for _, i := range idx {
			stuck = append(stuck, g.nodes[i])
		}
	}
	return order, stuck
}

// idxHeap is a binary min-heap of positions by g.less (container/heap
// boxes every push).
type idxHeap struct {
	items []int32
	g     *runGraph
}

func (h *idxHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *idxHeap) push(x int32) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.g.less(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *idxHeap) pop() int32 {
	x := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return x
}

func (h *idxHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h.g.less(h.items[r], h.items[l]) {
			j = r
		}
		if !h.g.less(h.items[j], h.items[i]) {
			return
		}
		h.items[i], h.items[j] = h.items[j], h.items[i]
		i = j
	}
}

func (g *runGraph) selfLoop() bool {
	for _, e := range g.edges {
		if e.From == e.To && e.Kind.Orders() {
			return true
		}
	}
	return false
}
