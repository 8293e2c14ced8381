package analysis

import (
	"strings"
	"sync"
)

// What a move through an edit of one document may change in a result:
// the nodes with a span or a place in their words in that document (and
// the nodes inside them, which point at them), and the edges at those
// nodes or written there. Everything else is shared unchanged, so a
// followed keystroke looks only at these: walking all of
// operations-puppet's 77,000 nodes and 92,000 edges for each one cost ~30
// ms of pointer chasing. The lists hold graph places and edge numbers,
// which a move keeps, so every result moved from this one shares them.

// involvedCache holds, per document, what a move through an edit of it
// may change; shared by a result and every result moved from it.
type involvedCache struct {
	mu    sync.Mutex
	byURI map[string]*involvement
}

type involvement struct {
	nodes  []int32 // graph places, ascending
	isNode []bool  // by graph place
	edges  []int32 // edge numbers, ascending
}

// involvedCache is r's cache, made on first use (results are made by
// every system; ShiftResult hands the cache to the results it makes).
func (r *Result) involvedCache() *involvedCache {
	r.involvedInit.Do(func() {
		if r.involvedBy == nil {
			r.involvedBy = &involvedCache{}
		}
	})
	return r.involvedBy
}

// involved is what a move through an edit of uri may change in r.
func (r *Result) involved(uri string) *involvement {
	c := r.involvedCache()
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.byURI[uri]; ok {
		return v
	}
	v := r.findInvolved(uri)
	if c.byURI == nil {
		c.byURI = map[string]*involvement{}
	}
	c.byURI[uri] = v
	return v
}

func (r *Result) findInvolved(uri string) *involvement {
	g := r.Graph.Nodes
	v := &involvement{isNode: make([]bool, len(g))}
	mark := markOpen + uri + markSep
	own := func(n *Node) bool {
		if n.Decl.URI == uri || n.Full.URI == uri {
			return true
		}
		for _, f := range n.Facts {
			if f.Template != "" && strings.Contains(f.Template, mark) {
				return true
			}
		}
		return false
	}
	const unknown, no, yes = 0, 1, 2
	state := make([]byte, len(g))
	var in func(n *Node, depth int) bool
	in = func(n *Node, depth int) bool {
		if n == nil {
			return false
		}
		inGraph := r.slot(n) >= 0
		if inGraph && state[n.Index] != unknown {
			return state[n.Index] == yes
		}
		// a node outside the graph is looked at whole each time; a
		// parent chain longer than any real one is taken as moved (the
		// move itself then decides)
		y := depth > 1000 || own(n) || in(n.Parent, depth+1)
		if inGraph {
			state[n.Index] = no
			if y {
				state[n.Index] = yes
			}
		}
		return y
	}
	for k, n := range g {
		if in(n, 0) {
			v.isNode[k] = true
			v.nodes = append(v.nodes, int32(k))
		}
	}
	at := func(n *Node) bool {
		if n == nil {
			return false
		}
		if r.slot(n) >= 0 {
			return v.isNode[n.Index]
		}
		return true // not in the graph: let the move look at it
	}
	for i, e := range r.Graph.Edges {
		if e.At.URI == uri || at(e.From) || at(e.To) {
			v.edges = append(v.edges, int32(i))
		}
	}
	return v
}
