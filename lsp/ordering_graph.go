package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

func init() { register("ordering/graph", method{call: (*Server).orderingGraph, async: true}) }

// graphNode and graphEdge are the wire shape of the custom request
// `ordering/graph` the editor's graph view draws.
type graphNode struct {
	ID       int            `json:"id"`
	Label    string         `json:"label"`
	Kind     string         `json:"kind"`
	System   string         `json:"system"`
	URI      string         `json:"uri"`
	Range    protocol.Range `json:"range"`
	Position *int           `json:"position"`
	Cycle    bool           `json:"cycle"`
	// Parent is the node's container (class, define, bundle, SLS file...)
	// when the container is in the answer too: the view draws it as a
	// compound node that can be collapsed.
	Parent    *int `json:"parent,omitempty"`
	Container bool `json:"container,omitempty"`
}

type graphEdge struct {
	From   int    `json:"from"`
	To     int    `json:"to"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Cycle  bool   `json:"cycle"`
}

type graphResult struct {
	Nodes []graphNode `json:"nodes"`
	Edges []graphEdge `json:"edges"`
	// Focus is the node at the position asked about (params.position),
	// or what the reference there names.
	Focus *int `json:"focus,omitempty"`
}

// orderingGraph returns the relationship graph of one file's system (the
// nodes of that file and everything they are related to), or of the whole
// workspace when no uri is given. Nodes come in execution order.
func (s *Server) orderingGraph(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		URI      string             `json:"uri"`
		Position *protocol.Position `json:"position"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	snap := s.snap.latest(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := graphResult{Nodes: []graphNode{}, Edges: []graphEdge{}}
	focusOff := -1
	var focusText []byte
	if p.Position != nil && p.URI != "" {
		if f, off := s.offset(p.URI, *p.Position); f != nil && off <= len(f.Text) {
			focusOff, focusText = off, f.Text
		}
	}
	if snap == nil {
		return out, nil
	}
	type key struct {
		r *analysis.Result
		n *analysis.Node
	}
	ids := map[key]int{}
	for _, r := range snap.results {
		var focus *analysis.Node
		if focusOff >= 0 && out.Focus == nil {
			focus = focusNode(r, p.URI, focusText, focusOff)
		}
		keep := map[*analysis.Node]bool{}
		if focus != nil {
			keep = neighbourhood(r, focus, focusHops, maxFocusNodes)
		} else {
			for _, n := range r.Graph.Nodes {
				if !n.Hidden && (p.URI == "" || n.Decl.URI == p.URI) {
					keep[n] = true
				}
			}
			if len(keep) == 0 {
				continue
			}
			// Pull in the other ends of edges so cross-file relationships
			// show (a container's hang on its anchors): one step from the
			// file's own nodes. Marking while scanning made it transitive
			// in edge order: the graph of operations-puppet's base.pp (4
			// declarations) pulled in 12,429 nodes.
			own := make(map[*analysis.Node]bool, len(keep))
			for n := range keep {
				own[n] = true
			}
			for _, e := range r.Graph.Edges {
				f, t := visible(e.From), visible(e.To)
				if f.Hidden || t.Hidden {
					continue
				}
				if own[f] {
					keep[t] = true
				}
				if own[t] {
					keep[f] = true
				}
			}
			addContainers(keep)
		}
		onCycle := map[*analysis.Edge]bool{}
		cycleNode := map[*analysis.Node]bool{}
		for _, c := range analysis.Cycles(r.Graph.Nodes, r.Graph.Edges, analysis.ByIndex) {
			for _, e := range c {
				onCycle[e] = true
				cycleNode[visible(e.From)] = true
				cycleNode[visible(e.To)] = true
			}
		}
		var nodes []*analysis.Node
		for _, n := range r.Graph.Nodes {
			if keep[n] {
				nodes = append(nodes, n)
			}
		}
		pos := func(n *analysis.Node) int {
			if ps := r.Positions(n); len(ps) > 0 {
				return ps[0].Index
			}
			return 1 << 30
		}
		sort.SliceStable(nodes, func(i, j int) bool { return pos(nodes[i]) < pos(nodes[j]) })
		for _, n := range nodes {
			id := len(out.Nodes)
			ids[key{r, n}] = id
			gn := graphNode{ID: id, Label: n.Ref, Kind: n.Kind, System: r.System, URI: n.Decl.URI, Range: s.toRange(n.Decl), Cycle: cycleNode[n]}
			if ps := r.Positions(n); len(ps) > 0 {
				v := ps[0].Index + 1
				gn.Position = &v
			}
			out.Nodes = append(out.Nodes, gn)
		}
		for _, n := range nodes {
			id := ids[key{r, n}]
			out.Nodes[id].Container = n.Container
			for c := n.Parent; c != nil; c = c.Parent {
				if pid, ok := ids[key{r, visible(c)}]; ok && pid != id {
					out.Nodes[id].Parent = &pid
					break
				}
			}
		}
		if focus != nil {
			if id, ok := ids[key{r, focus}]; ok {
				out.Focus = &id
			}
		}
		for _, e := range r.Graph.Edges {
			from, to := visible(e.From), visible(e.To)
			a, ok1 := ids[key{r, from}]
			b, ok2 := ids[key{r, to}]
			if !ok1 || !ok2 || a == b {
				continue
			}
			out.Edges = append(out.Edges, graphEdge{From: a, To: b, Kind: e.Kind.String(), Reason: e.Reason, Cycle: onCycle[e]})
		}
	}
	return out, nil
}

// visible maps a hidden node (an anchor) to the container users wrote.
func visible(n *analysis.Node) *analysis.Node {
	for n.Hidden && n.Parent != nil {
		n = n.Parent
	}
	return n
}

// focusNode is what the graph centres on for a cursor at off in uri: the
// target of the reference there, else the innermost declaration there.
func focusNode(r *analysis.Result, uri string, text []byte, off int) *analysis.Node {
	for _, l := range r.LinksAt(uri, off) {
		for _, n := range l.Nodes {
			if !n.Hidden {
				return n
			}
		}
	}
	if ns := r.NodesAt(uri, off); len(ns) > 0 {
		return ns[0]
	}
	// not on a name: the first declaration named later on the cursor's
	// line (the cursor on `service {`), else the innermost one around it
	var in, line *analysis.Node
	for _, n := range r.Graph.Nodes {
		if n.Hidden || n.Decl.URI != uri {
			continue
		}
		if n.Full.Start <= off && off <= n.Full.End && (in == nil || n.Full.End-n.Full.Start < in.Full.End-in.Full.Start) {
			in = n
		}
		if n.Decl.Start >= off && (line == nil || n.Decl.Start < line.Decl.Start) {
			line = n
		}
	}
	if line != nil && line.Decl.End <= len(text) && bytes.IndexByte(text[off:line.Decl.Start], '\n') < 0 {
		return line
	}
	return in
}

// A graph asked for around a position holds what is up to focusHops
// relationships away from the node there, in any file (the view narrows
// it further), and the containers of what it holds; at most
// maxFocusNodes, nearest first: a class every role includes reaches half
// a control repository in three hops.
const (
	focusHops     = 3
	maxFocusNodes = 400
)

// neighbourhood is what is up to hops relationships away from focus. A
// node's container is at no distance from it: what orders a resource is
// often written on its class (`Class['a'] -> Class['b']`), and the edges
// between a node and its own container are the containment itself.
func neighbourhood(r *analysis.Result, focus *analysis.Node, hops, limit int) map[*analysis.Node]bool {
	adj := map[*analysis.Node][]*analysis.Node{}
	for _, e := range r.Graph.Edges {
		f, t := visible(e.From), visible(e.To)
		if f == t || f.Hidden || t.Hidden || holds(f, t) || holds(t, f) {
			continue
		}
		adj[f] = append(adj[f], t)
		adj[t] = append(adj[t], f)
	}
	keep := map[*analysis.Node]bool{focus: true}
	level := []*analysis.Node{focus}
	for c := focus.Parent; c != nil; c = c.Parent {
		if v := visible(c); !v.Hidden {
			keep[v] = true
			level = append(level, v)
			break // the innermost: the outer ones hold half the workspace
		}
	}
	// a container's members are one step inside it
	for _, n := range r.Graph.Nodes {
		if !n.Hidden && n.Parent != nil && visible(n.Parent) == focus {
			adj[focus] = append(adj[focus], n)
		}
	}
	for d := 0; d < hops && len(level) > 0 && len(keep) < limit; d++ {
		var next []*analysis.Node
		for _, v := range level {
			for _, w := range adj[v] {
				if !keep[w] && len(keep) < limit {
					keep[w] = true
					next = append(next, w)
				}
			}
		}
		level = next
	}
	addContainers(keep)
	return keep
}

// addContainers adds the containers of the nodes kept, so the view can
// draw them as frames (and fold them).
func addContainers(keep map[*analysis.Node]bool) {
	for n := range keep {
		for c := n.Parent; c != nil; c = c.Parent {
			if v := visible(c); !v.Hidden {
				keep[v] = true
			}
		}
	}
}

// holds reports whether c is a container around n.
func holds(c, n *analysis.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == c {
			return true
		}
	}
	return false
}
