package analysis

import (
	"fmt"
	"slices"
)

// Branch is one arm of one evaluation of a conditional the analysis could
// not decide (a fact, pillar or grain nobody gave it): the systems evaluate
// every arm, and the relationships written in them exist only in the
// runs that take their arms.
type Branch interface {
	// SamePoint: both are arms of the same evaluation of a conditional.
	SamePoint(Branch) bool
	// SameArm: the same arm of the same evaluation.
	SameArm(Branch) bool
	// Excludes: no run takes both (two arms of one evaluation, or tests of
	// one value that cannot both hold).
	Excludes(Branch) bool
}

// Consistent: no two branches of bs exclude each other.
func Consistent(bs []Branch) bool {
	for i, b := range bs {
		for _, o := range bs[i+1:] {
			if b.Excludes(o) {
				return false
			}
		}
	}
	return true
}

func hasBranch(set []Branch, b Branch) bool {
	for _, o := range set {
		if o.SameArm(b) {
			return true
		}
	}
	return false
}

// CondCycle is a cycle some run can have: the branches it needs (none:
// every run has it), and the edges of that run's graph (for re-walking
// it, e.g. the way the tool prints it).
type CondCycle struct {
	Path  []*Edge
	World []*Edge
	When  []Branch
}

// FeasibleCycles finds the cycles whose edges' branches (when) can all be
// taken in one run. A cycle found that needs an undecided conditional is
// looked for again in one world per arm of it (the edges of the other
// arms removed), inside its component only, until every branch its edges
// need is chosen: what remains is a cycle of that world. Without
// branches it is Cycles. A budget of worlds keeps pathological inputs
// from hanging the analysis.
func FeasibleCycles(nodes []*Node, edges []*Edge, less func(a, b *Node) bool, when func(*Edge) []Branch) []CondCycle {
	conditional := false
	live := make([]*Edge, 0, len(edges))
	for _, e := range edges {
		bs := when(e)
		conditional = conditional || len(bs) > 0
		if Consistent(bs) {
			live = append(live, e)
		}
	}
	if !conditional {
		cs := Cycles(nodes, edges, less)
		out := make([]CondCycle, len(cs))
		for i, c := range cs {
			out[i] = CondCycle{Path: c, World: edges}
		}
		return out
	}
	s := &cycleSearch{when: when, less: less, budget: 2000, seen: map[string]bool{}}
	s.solve(nodes, live, nil)
	slices.SortStableFunc(s.found, func(p, q CondCycle) int {
		switch {
		case less(p.Path[0].From, q.Path[0].From):
			return -1
		case less(q.Path[0].From, p.Path[0].From):
			return 1
		}
		return 0
	})
	return s.found
}

type cycleSearch struct {
	when   func(*Edge) []Branch
	less   func(p, q *Node) bool
	budget int
	seen   map[string]bool
	found  []CondCycle
}

func (s *cycleSearch) solve(nodes []*Node, edges []*Edge, fixed []Branch) {
	var comps *components // of this world, once a cycle needs one
	for _, c := range Cycles(nodes, edges, s.less) {
		var open Branch
		var when []Branch
		for _, e := range c {
			for _, b := range s.when(e) {
				if open == nil && !hasBranch(fixed, b) {
					open = b
				}
				if !hasBranch(when, b) {
					when = append(when, b)
				}
			}
		}
		if open == nil || s.budget <= 0 {
			if Consistent(when) {
				s.report(c, edges, when)
			}
			continue
		}
		s.budget--
		if comps == nil {
			comps = componentsOf(edges)
		}
		cn, ce := comps.of(c)
		var arms []Branch
		for _, e := range ce {
			for _, b := range s.when(e) {
				if b.SamePoint(open) && !hasBranch(arms, b) {
					arms = append(arms, b)
				}
			}
		}
		tried := false
		for _, arm := range arms {
			nf := append(slices.Clip(fixed), arm)
			if !Consistent(nf) {
				continue
			}
			tried = true
			sub := make([]*Edge, 0, len(ce))
			for _, e := range ce {
				if compatible(s.when(e), nf) {
					sub = append(sub, e)
				}
			}
			s.solve(cn, sub, nf)
		}
		if !tried {
			// No arm of it can be taken with the branches chosen: the
			// edges that need one of its arms are not in this world.
			sub := make([]*Edge, 0, len(ce))
			for _, e := range ce {
				keep := true
				for _, b := range s.when(e) {
					keep = keep && !b.SamePoint(open)
				}
				if keep {
					sub = append(sub, e)
				}
			}
			s.solve(cn, sub, fixed)
		}
	}
}

func (s *cycleSearch) report(c, world []*Edge, when []Branch) {
	ids := make([]int, 0, len(c))
	for _, e := range c {
		ids = append(ids, e.From.Index)
	}
	slices.Sort(ids)
	key := fmt.Sprint(ids)
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	s.found = append(s.found, CondCycle{Path: c, World: world, When: when})
}

// compatible: no branch of bs excludes one of fixed.
func compatible(bs, fixed []Branch) bool {
	for _, b := range bs {
		for _, f := range fixed {
			if b.Excludes(f) {
				return false
			}
		}
	}
	return true
}

// components are the strongly connected components of a world, over
// every edge given: the component a cycle lies in is the part of the
// world a choice of branch can change. Worked out once per world (a run
// with a thousand conditional cycles asked a walk of the whole run for
// each).
type components struct {
	id    map[*Node]int32
	nodes [][]*Node // by Index
	edges [][]*Edge // in the world's order
}

func componentsOf(edges []*Edge) *components {
	id := map[*Node]int32{}
	var nodes []*Node
	add := func(n *Node) int32 {
		i, ok := id[n]
		if !ok {
			i = int32(len(nodes))
			id[n] = i
			nodes = append(nodes, n)
		}
		return i
	}
	out := [][]int32{}
	for _, e := range edges {
		f, t := add(e.From), add(e.To)
		for len(out) < len(nodes) {
			out = append(out, nil)
		}
		out[f] = append(out[f], t)
	}
	for len(out) < len(nodes) {
		out = append(out, nil)
	}
	comps := tarjan(out)
	c := &components{id: make(map[*Node]int32, len(nodes)), nodes: make([][]*Node, len(comps)), edges: make([][]*Edge, len(comps))}
	for k, comp := range comps {
		ns := make([]*Node, len(comp))
		for j, v := range comp {
			ns[j] = nodes[v]
			c.id[nodes[v]] = int32(k)
		}
		slices.SortFunc(ns, func(p, q *Node) int { return p.Index - q.Index })
		c.nodes[k] = ns
	}
	for _, e := range edges {
		if k := c.id[e.From]; k == c.id[e.To] {
			c.edges[k] = append(c.edges[k], e)
		}
	}
	return c
}

// of is the component a cycle lies in: its nodes and the edges between
// them.
func (c *components) of(cycle []*Edge) ([]*Node, []*Edge) {
	k := c.id[cycle[0].From]
	return c.nodes[k], c.edges[k]
}
