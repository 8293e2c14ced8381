package analysis

import "container/heap"

// Toposort is Kahn's algorithm that always takes the ready node that
// compares lowest under less. Every system's order is this with its own
// priority: Puppet's catalog position, Salt's (order, name), CFEngine's
// (pass, type rank, text position).
//
// Only edges whose kind Orders() count, and only between nodes in nodes.
// The result holds every node that could be ordered; stuck holds the rest
// (nodes on or behind a cycle), in their priority order, so callers can
// still show a partial order.
func Toposort(nodes []*Node, edges []*Edge, less func(a, b *Node) bool) (order, stuck []*Node) {
	in := make(map[*Node]bool, len(nodes))
	for _, n := range nodes {
		in[n] = true
	}
	indeg := make(map[*Node]int, len(nodes))
	succ := make(map[*Node][]*Node, len(nodes))
	for _, e := range edges {
		if !e.Kind.Orders() || !in[e.From] || !in[e.To] || e.From == e.To {
			continue
		}
		succ[e.From] = append(succ[e.From], e.To)
		indeg[e.To]++
	}
	h := &nodeHeap{less: less}
	for _, n := range nodes {
		if indeg[n] == 0 {
			h.items = append(h.items, n)
		}
	}
	heap.Init(h)
	order = make([]*Node, 0, len(nodes))
	for h.Len() > 0 {
		n := heap.Pop(h).(*Node)
		order = append(order, n)
		for _, s := range succ[n] {
			indeg[s]--
			if indeg[s] == 0 {
				heap.Push(h, s)
			}
		}
	}
	if len(order) < len(nodes) {
		done := make(map[*Node]bool, len(order))
		for _, n := range order {
			done[n] = true
		}
		for _, n := range nodes {
			if !done[n] {
				stuck = append(stuck, n)
			}
		}
		sortNodes(stuck, less)
	}
	return order, stuck
}

type nodeHeap struct {
	items []*Node
	less  func(a, b *Node) bool
}

func (h *nodeHeap) Len() int           { return len(h.items) }
func (h *nodeHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *nodeHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *nodeHeap) Push(x any)         { h.items = append(h.items, x.(*Node)) }
func (h *nodeHeap) Pop() any {
	n := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return n
}

func sortNodes(ns []*Node, less func(a, b *Node) bool) {
	h := &nodeHeap{items: append([]*Node(nil), ns...), less: less}
	heap.Init(h)
	for i := range ns {
		ns[i] = heap.Pop(h).(*Node)
	}
}

// ByIndex orders nodes by their position in the graph: the order the
// lowering added them in.
func ByIndex(a, b *Node) bool { return a.Index < b.Index }
