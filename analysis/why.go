package analysis

import (
	"sort"
	"strings"
)

// Why is the answer to "why does A run before B": the shortest chain of
// edges from one to the other.
type Why struct {
	// Path runs in execution direction, from the first of the two to run
	// to the second; nil when neither is ordered before the other.
	Path []*Edge
	// Reversed: B runs before A (Path starts at B).
	Reversed bool
	// ByCalls: no ordering edge connects them; the chain goes through
	// calls (a bundle's methods, an include) that place one inside the
	// other's run.
	ByCalls bool
}

// Why finds the shortest chain of ordering edges that makes a node of as
// run before a node of bs (nodes of one declaration in several runs may
// be given), else from bs to as, else the same through calls too.
func (r *Result) Why(as, bs []*Node) Why {
	for _, calls := range []bool{false, true} {
		if p := r.chain(as, bs, calls); p != nil {
			return Why{Path: p, ByCalls: calls}
		}
		if p := r.chain(bs, as, calls); p != nil {
			return Why{Path: p, Reversed: true, ByCalls: calls}
		}
	}
	return Why{}
}

// chain is a breadth-first search from every node of from to any node of
// to; hidden anchors are passed through.
func (r *Result) chain(from, to []*Node, calls bool) []*Edge {
	next := map[*Node][]*Edge{}
	for _, e := range r.Graph.Edges {
		if e.Kind.Orders() || (calls && e.Kind == Call) {
			next[e.From] = append(next[e.From], e)
		}
	}
	goal := map[*Node]bool{}
	for _, n := range to {
		goal[n] = true
	}
	via := map[*Node]*Edge{}
	seen := map[*Node]bool{}
	var queue []*Node
	for _, n := range from {
		if !seen[n] {
			seen[n] = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range next[x] {
			if seen[e.To] {
				continue
			}
			seen[e.To] = true
			via[e.To] = e
			if goal[e.To] {
				var path []*Edge
				for n := e.To; via[n] != nil; n = via[n].From {
					path = append(path, via[n])
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			queue = append(queue, e.To)
		}
	}
	return nil
}

// NodesByRef returns the visible nodes whose reference is ref (exactly,
// else ignoring case): one per run a declaration is evaluated in.
func (r *Result) NodesByRef(ref string) []*Node {
	var exact, folded []*Node
	for _, n := range r.Graph.Nodes {
		if n.Hidden {
			continue
		}
		if n.Ref == ref {
			exact = append(exact, n)
		} else if strings.EqualFold(n.Ref, ref) {
			folded = append(folded, n)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return folded
}

// NearestRefs lists up to n visible references closest to ref by edit
// distance, for "did you mean".
func (r *Result) NearestRefs(ref string, n int) []string {
	type cand struct {
		ref string
		d   int
	}
	seen := map[string]bool{}
	var cs []cand
	low := strings.ToLower(ref)
	for _, x := range r.Graph.Nodes {
		if x.Hidden || seen[x.Ref] {
			continue
		}
		seen[x.Ref] = true
		cs = append(cs, cand{x.Ref, EditDistance(low, strings.ToLower(x.Ref))})
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].ref < cs[j].ref
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].ref)
	}
	return out
}

// EditDistance is the Levenshtein distance between a and b, in bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
