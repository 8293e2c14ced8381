package analysis

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
	r.index()
	return r.holding[n]
}

// index builds, once per result, what per-node questions need: positions
// in the runs, the edges at each visible node, which containers hold
// steps. Requests run concurrently on one result, hence the Once.
func (r *Result) index() {
	r.once.Do(func() {
		r.pos = map[*Node][]RunPos{}
		r.holding = map[*Node]bool{}
		for i := range r.Runs {
			run := &r.Runs[i]
			for j := range run.Steps {
				st := &run.Steps[j]
				if st.Node != nil {
					r.pos[st.Node] = append(r.pos[st.Node], RunPos{Run: run, Index: j, Step: st})
					for p := st.Node.Parent; p != nil && !r.holding[p]; p = p.Parent {
						r.holding[p] = true
					}
				}
			}
		}
		r.near = map[*Node][]*Edge{}
		for _, e := range r.Graph.Edges {
			f, t := visibleOf(e.From), visibleOf(e.To)
			r.near[f] = append(r.near[f], e)
			if t != f {
				r.near[t] = append(r.near[t], e)
			}
			// edges on a raw node (hidden ends included) stay findable too
			if e.From != f {
				r.near[e.From] = append(r.near[e.From], e)
			}
			if e.To != t && e.To != e.From {
				r.near[e.To] = append(r.near[e.To], e)
			}
		}
	})
}

// edgesNear returns the edges with an end at n or at one of its hidden
// anchors.
func (r *Result) edgesNear(n *Node) []*Edge {
	r.index()
	return r.near[n]
}
