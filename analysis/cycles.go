package analysis

// Cycles finds the dependency cycles among nodes: one entry per strongly
// connected component that has a cycle (Tarjan), each given as the
// shortest cycle through the component's lowest node under less, as the
// list of edges in execution direction. The first edge starts at that
// lowest node and the last edge ends there, so a message can print
// `A => B => A` and link every edge to the words that made it.
//
// Only edges whose kind Orders() count. Self-loops are cycles of one edge.
func Cycles(nodes []*Node, edges []*Edge, less func(a, b *Node) bool) [][]*Edge {
	idx := make(map[*Node]int, len(nodes))
	for i, n := range nodes {
		idx[n] = i
	}
	out := make([][]*Edge, len(nodes))
	for _, e := range edges {
		if !e.Kind.Orders() {
			continue
		}
		if _, ok := idx[e.From]; !ok {
			continue
		}
		if _, ok := idx[e.To]; !ok {
			continue
		}
		out[idx[e.From]] = append(out[idx[e.From]], e)
	}

	succ := make([][]int32, len(nodes))
	for v, es := range out {
		for _, e := range es {
			succ[v] = append(succ[v], int32(idx[e.To]))
		}
	}
	comps := tarjan(succ)

	var cycles [][]*Edge
	for _, comp := range comps {
		if len(comp) == 1 {
			v := int(comp[0])
			for _, e := range out[v] {
				if e.To == nodes[v] {
					cycles = append(cycles, []*Edge{e})
					break
				}
			}
			continue
		}
		in := make(map[int]bool, len(comp))
		start := int(comp[0])
		for _, v := range comp {
			in[int(v)] = true
			if less(nodes[v], nodes[start]) {
				start = int(v)
			}
		}
		cycles = append(cycles, shortestCycle(start, in, out, idx))
	}
	// Report cycles in the order of their first node.
	sortCycles(cycles, less)
	return cycles
}

// shortestCycle is a BFS from start back to start inside one component.
func shortestCycle(start int, in map[int]bool, out [][]*Edge, idx map[*Node]int) []*Edge {
	via := map[int]*Edge{}
	queue := []int{start}
	seen := map[int]bool{start: true}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range out[v] {
			w := idx[e.To]
			if !in[w] {
				continue
			}
			if w == start {
				path := []*Edge{e}
				for x := v; x != start; {
					pe := via[x]
					path = append(path, pe)
					x = idx[pe.From]
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			if !seen[w] {
				seen[w] = true
				via[w] = e
				queue = append(queue, w)
			}
		}
	}
	return nil
}

func sortCycles(cs [][]*Edge, less func(a, b *Node) bool) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && less(cs[j][0].From, cs[j-1][0].From); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// CycleNodes lists the nodes along a cycle, first node repeated at the end.
func CycleNodes(cycle []*Edge) []*Node {
	if len(cycle) == 0 {
		return nil
	}
	ns := []*Node{cycle[0].From}
	for _, e := range cycle {
		ns = append(ns, e.To)
	}
	return ns
}

// tarjan lists the strongly connected components of a graph given as
// successor lists, each in the order Tarjan's stack gives it (iterative:
// manifests with 100k resources and long chains must not blow the
// goroutine stack).
func tarjan(out [][]int32) [][]int32 {
	const unvisited = -1
	n := len(out)
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	var comps [][]int32
	for i := range index {
		index[i] = unvisited
	}
	var stack []int32
	counter := int32(0)
	type frame struct{ v, next int32 }
	for root := int32(0); root < int32(n); root++ {
		if index[root] != unvisited {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if int(f.next) < len(out[v]) {
				w := out[v][f.next]
				f.next++
				if index[w] == unvisited {
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].v; low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				var comp []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// ClosingEdge is the relationship a cycle's one diagnostic sits on: of the
// edges with words of their own, the last one in the text (by file, then
// offset): reading top to bottom, the relationship that closes the loop,
// and usually the one just typed. Explicit relationships win over
// autorequires, whose words are a title or an attribute nobody wrote as an
// ordering. Nil when no edge has words.
func ClosingEdge(cycle []*Edge) *Edge {
	var best *Edge
	later := func(a, b *Edge) bool {
		if (a.Kind == Auto) != (b.Kind == Auto) {
			return b.Kind == Auto
		}
		if a.At.URI != b.At.URI {
			return a.At.URI > b.At.URI
		}
		return a.At.Start > b.At.Start
	}
	for _, e := range cycle {
		if e.At.IsZero() {
			continue
		}
		if best == nil || later(e, best) {
			best = e
		}
	}
	return best
}

// CycleDiagnostic makes the one problem a cycle is: at the edge that
// closes it (ClosingEdge), every other edge as related information
// (described by say), the members named for code lenses. A cycle whose
// edges have no words sits on its first member's declaration.
func CycleDiagnostic(cycle []*Edge, sev Severity, code, msg string, say func(*Edge) string) Diagnostic {
	d := Diagnostic{Severity: sev, Code: code, Message: msg}
	closing := ClosingEdge(cycle)
	if closing != nil {
		d.At = closing.At
	} else if len(cycle) > 0 {
		d.At = cycle[0].From.Decl
	}
	for _, e := range cycle {
		if e == closing || e.At.IsZero() {
			continue
		}
		d.Related = append(d.Related, Related{At: e.At, Message: say(e)})
	}
	ns := CycleNodes(cycle)
	if len(ns) > 1 {
		d.Members = ns[:len(ns)-1]
	}
	return d
}
