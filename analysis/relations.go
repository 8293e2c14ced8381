package analysis

import "slices"

// Neighbour is the other end of one of a node's edges, as users know it:
// a hidden anchor is shown by the container it stands for.
type Neighbour struct {
	Node *Node
	Edge *Edge
}

// Relations are a node's direct relationships, the answer to "what does
// this wait for and what waits for it" that hover, code lens and the call
// hierarchy all give.
type Relations struct {
	Waits    []Neighbour // ordering edges into the node (require, watch, autorequire...)
	Before   []Neighbour // ordering edges out of it
	CalledBy []Neighbour // Call edges into it (include, usebundle, include_policy)
	Calls    []Neighbour // Call edges out of it
}

// Relations lists n's direct relationships. The edges between a container
// and what it holds (containment) are left out: they are the structure,
// not a relationship the user wrote.
func (r *Result) Relations(n *Node) Relations {
	return r.relations(n, n.Container || r.holdsSteps(n))
}

func (r *Result) relations(n *Node, holds bool) Relations {
	var rel Relations
	// A container's relationships hang on its hidden anchors: they are
	// the container's own, except those to what it holds.
	self := func(x *Node) bool { return x == n || (x.Hidden && visibleOf(x) == n) }
	for _, e := range r.edgesNear(n) {
		// Edges between a node and the hidden anchors of its own container
		// are the containment itself, already said in the header.
		if (e.To == n && ownAnchor(e.From, n)) || (e.From == n && ownAnchor(e.To, n)) {
			continue
		}
		if holds && ((self(e.To) && (within(e.From, n) || self(e.From))) || (self(e.From) && (within(e.To, n) || self(e.To)))) {
			continue
		}
		switch {
		case self(e.To) && !self(e.From):
			switch e.Kind {
			case Order, Auto, Refresh:
				rel.Waits = append(rel.Waits, Neighbour{visibleOf(e.From), e})
			case Call:
				rel.CalledBy = append(rel.CalledBy, Neighbour{visibleOf(e.From), e})
			}
		case self(e.From) && !self(e.To):
			switch e.Kind {
			case Order, Auto, Refresh:
				rel.Before = append(rel.Before, Neighbour{visibleOf(e.To), e})
			case Call:
				rel.Calls = append(rel.Calls, Neighbour{visibleOf(e.To), e})
			}
		}
	}
	return rel
}

// holdsSteps reports whether some node inside n has a place in a run.
func (r *Result) holdsSteps(n *Node) bool {
	r.indexPositions()
	if i := r.slot(n); i >= 0 {
		return r.pos.holding[i]
	}
	return r.pos.holdingOther[n]
}

// Index builds now the indexes hovers, code lenses and the relations read
// (where each node runs, the edges at each node), so that the first
// request after an analysis does not pay for them: 40-80 ms on
// operations-puppet's 77,000 nodes, which made its first hover miss the
// 50 ms budget. Safe to call with requests already reading the result.
func (r *Result) Index() {
	r.indexPositions()
	r.indexEdges()
}

// posIndex is where each node runs, as a table indexed by node (the
// steps of node slot i are at[start[i]:start[i+1]], in run order), and
// which containers hold steps. A map of slices grown by append cost
// 120 ms per analysis on operations-puppet's 309,000 steps, paid after
// every edit before the result answered anything.
//
// Entries name a run and a step by number, not by pointer: a result moved
// through an edit (ShiftResult) keeps every run and step at its number, so
// it shares the table instead of building it again (~30 ms of every
// followed keystroke on operations-puppet).
type posIndex struct {
	start        []int32
	at           []posEntry
	holding      []bool
	other        map[*Node][]posEntry // nodes that are not in the graph at their Index
	holdingOther map[*Node]bool
}

// posEntry is step Step of run Run.
type posEntry struct{ run, step int32 }

// runPos is e as callers see it.
func (r *Result) runPos(e posEntry) RunPos {
	run := &r.Runs[e.run]
	return RunPos{Run: run, Index: int(e.step), Step: &run.Steps[e.step]}
}

// indexPositions builds, once per result, where each node runs and which
// containers hold steps. Requests run concurrently on one result, hence
// the Once.
func (r *Result) indexPositions() {
	r.posOnce.Do(func() {
		n := len(r.Graph.Nodes)
		x := posIndex{start: make([]int32, n+1), holding: make([]bool, n)}
		for i := range r.Runs {
			for j := range r.Runs[i].Steps {
				if st := r.Runs[i].Steps[j].Node; st != nil {
					if k := r.slot(st); k >= 0 {
						x.start[k+1]++
					}
				}
			}
		}
		for k := 0; k < n; k++ {
			x.start[k+1] += x.start[k]
		}
		x.at = make([]posEntry, x.start[n])
		fill := slices.Clone(x.start[:n])
		hold := func(p *Node) bool {
			if k := r.slot(p); k >= 0 {
				if x.holding[k] {
					return false
				}
				x.holding[k] = true
				return true
			}
			if x.holdingOther[p] {
				return false
			}
			if x.holdingOther == nil {
				x.holdingOther = map[*Node]bool{}
			}
			x.holdingOther[p] = true
			return true
		}
		for i := range r.Runs {
			run := &r.Runs[i]
			for j := range run.Steps {
				st := &run.Steps[j]
				if st.Node == nil {
					continue
				}
				rp := posEntry{int32(i), int32(j)}
				if k := r.slot(st.Node); k >= 0 {
					x.at[fill[k]] = rp
					fill[k]++
				} else {
					if x.other == nil {
						x.other = map[*Node][]posEntry{}
					}
					x.other[st.Node] = append(x.other[st.Node], rp)
				}
				for p := st.Node.Parent; p != nil && hold(p); p = p.Parent {
				}
			}
		}
		r.pos = x
	})
}

// slot is n's place in the node-indexed tables, -1 for a node that is not
// in the graph at its Index.
func (r *Result) slot(n *Node) int {
	if n.Index >= 0 && n.Index < len(r.Graph.Nodes) && r.Graph.Nodes[n.Index] == n {
		return n.Index
	}
	return -1
}

// indexEdges builds, once per result, the edges at each node: at its
// visible end (an anchor's edges belong to its container too) and at the
// raw ends. A compressed table indexed by node (a control repository has
// a million edges: maps of slices cost seconds and hundreds of MB).
func (r *Result) indexEdges() {
	r.nearOnce.Do(func() {
		ends := edgeEnds
		n := len(r.Graph.Nodes)
		start := make([]int32, n+2)
		r.nearExtra = map[*Node][]*Edge{}
		for _, e := range r.Graph.Edges {
			ends(e, func(x *Node) {
				if i := r.slot(x); i >= 0 {
					start[i+2]++
				} else {
					r.nearExtra[x] = append(r.nearExtra[x], e)
				}
			})
		}
		for i := 2; i < len(start); i++ {
			start[i] += start[i-1]
		}
		edges := make([]*Edge, start[n+1])
		for _, e := range r.Graph.Edges {
			ends(e, func(x *Node) {
				if i := r.slot(x); i >= 0 {
					edges[start[i+1]] = e
					start[i+1]++
				}
			})
		}
		r.nearStart, r.nearEdges = start[:n+1], edges
	})
}

// edgeEnds calls emit with each node e is filed under in the edge index:
// its visible ends, then its raw ends when they differ.
func edgeEnds(e *Edge, emit func(*Node)) {
	f, t := visibleOf(e.From), visibleOf(e.To)
	emit(f)
	if t != f {
		emit(t)
	}
	if e.From != f {
		emit(e.From)
	}
	if e.To != t && e.To != e.From {
		emit(e.To)
	}
}

// inheritIndexes gives out, moved from r by ShiftResult, r's indexes with
// the moved nodes and edges put in, instead of building them again (~40
// ms of each followed keystroke on operations-puppet's 77,000 nodes and
// million index entries). What makes it sound: a move keeps every node at
// its place in the graph (node(n) is n's counterpart, at the same Index),
// every run and step at its number, and edge i of out is the counterpart
// of edge i of r; moved lists the edges that are not r's own.
//
// node may fail only for a node ShiftResult never reached, which a sound
// move does not hold; out then builds its indexes itself when asked.
func (out *Result) inheritIndexes(r *Result, node func(*Node) (*Node, bool), moved []int) {
	known := true
	counterpart := func(n *Node) *Node {
		c, ok := node(n)
		known = known && ok
		return c
	}
	r.indexPositions()
	x := r.pos
	if r.pos.other != nil {
		x.other = make(map[*Node][]posEntry, len(r.pos.other))
		for n, at := range r.pos.other {
			x.other[counterpart(n)] = at
		}
	}
	if r.pos.holdingOther != nil {
		x.holdingOther = make(map[*Node]bool, len(r.pos.holdingOther))
		for n, v := range r.pos.holdingOther {
			x.holdingOther[counterpart(n)] = v
		}
	}
	r.indexEdges()
	var extra map[*Node][]*Edge
	var edge map[*Edge]*Edge
	if len(moved) > 0 {
		edge = make(map[*Edge]*Edge, len(moved))
		for _, i := range moved {
			edge[r.Graph.Edges[i]] = out.Graph.Edges[i]
		}
	}
	extra = make(map[*Node][]*Edge, len(r.nearExtra))
	for n, es := range r.nearExtra {
		var cs []*Edge
		for j, e := range es {
			if c, ok := edge[e]; ok {
				if cs == nil {
					cs = slices.Clone(es)
				}
				cs[j] = c
			}
		}
		if cs == nil {
			cs = es
		}
		extra[counterpart(n)] = cs
	}
	if !known {
		return
	}
	out.posOnce.Do(func() { out.pos = x })

	out.nearOnce.Do(func() {
		out.nearStart, out.nearEdges, out.nearExtra = r.nearStart, r.nearEdges, extra
		if len(moved) > 0 {
			slots := map[int]bool{}
			for _, i := range moved {
				edgeEnds(r.Graph.Edges[i], func(n *Node) {
					if k := r.slot(n); k >= 0 {
						slots[k] = true
					}
				})
			}
			out.nearEdges = slices.Clone(r.nearEdges)
			for k := range slots {
				for j := r.nearStart[k]; j < r.nearStart[k+1]; j++ {
					if c, ok := edge[out.nearEdges[j]]; ok {
						out.nearEdges[j] = c
					}
				}
			}
		}
	})
}

// edgesNear returns the edges with an end at n or at one of its hidden
// anchors.
func (r *Result) edgesNear(n *Node) []*Edge {
	r.indexEdges()
	if i := r.slot(n); i >= 0 {
		return r.nearEdges[r.nearStart[i]:r.nearStart[i+1]]
	}
	return r.nearExtra[n]
}
