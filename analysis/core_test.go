package analysis

import (
	"strings"
	"testing"
)

func chain(names string, edges ...[2]int) *Graph {
	g := &Graph{}
	for _, n := range strings.Fields(names) {
		g.Add(&Node{Ref: n})
	}
	for _, e := range edges {
		g.Connect(&Edge{From: g.Nodes[e[0]], To: g.Nodes[e[1]], Kind: Order})
	}
	return g
}

func refs(ns []*Node) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.Ref)
	}
	return strings.Join(s, " ")
}

// Kahn's algorithm takes the lowest ready node: an edge pulls its source
// forward, unrelated nodes keep their priority.
func TestToposortPriority(t *testing.T) {
	g := chain("a b c d", [2]int{3, 1}) // d before b
	order, stuck := Toposort(g.Nodes, g.Edges, ByIndex)
	if got := refs(order); got != "a c d b" || stuck != nil {
		t.Errorf("order %q stuck %v", got, stuck)
	}
	// Non-ordering edges do not constrain.
	g.Edges[0].Kind = Call
	if order, _ := Toposort(g.Nodes, g.Edges, ByIndex); refs(order) != "a b c d" {
		t.Errorf("call edge ordered: %q", refs(order))
	}
}

func TestToposortStuck(t *testing.T) {
	g := chain("a b c d", [2]int{1, 2}, [2]int{2, 1}, [2]int{2, 3})
	order, stuck := Toposort(g.Nodes, g.Edges, ByIndex)
	if refs(order) != "a" || refs(stuck) != "b c d" {
		t.Errorf("order %q stuck %q", refs(order), refs(stuck))
	}
}

// Cycles reports each cycle once, as edges starting at its lowest node,
// shortest path first, plus self-loops.
func TestCycles(t *testing.T) {
	g := chain("a b c d e",
		[2]int{2, 1}, [2]int{1, 0}, [2]int{0, 2}, // a -> c -> b -> a
		[2]int{0, 1}, // a -> b: makes a => b => a the shortest from a
		[2]int{4, 4}, // e -> e
	)
	cs := Cycles(g.Nodes, g.Edges, ByIndex)
	if len(cs) != 2 {
		t.Fatalf("%d cycles, want 2", len(cs))
	}
	if got := refs(CycleNodes(cs[0])); got != "a b a" {
		t.Errorf("first cycle %q, want the shortest through a: a b a", got)
	}
	if got := refs(CycleNodes(cs[1])); got != "e e" {
		t.Errorf("self loop %q", got)
	}
}

// A 100k-long chain closed into a ring must not overflow the stack.
func TestCyclesLongRing(t *testing.T) {
	g := &Graph{}
	const n = 100000
	for i := 0; i < n; i++ {
		g.Add(&Node{Ref: "x"})
	}
	for i := 0; i < n; i++ {
		g.Connect(&Edge{From: g.Nodes[i], To: g.Nodes[(i+1)%n], Kind: Order})
	}
	cs := Cycles(g.Nodes, g.Edges, ByIndex)
	if len(cs) != 1 || len(cs[0]) != n {
		t.Fatalf("got %d cycles", len(cs))
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %s", n, got)
		}
	}
}

func TestSettings(t *testing.T) {
	s := Settings{}
	Flatten("", map[string]any{"puppet": map[string]any{"ordering": "random"}, "salt": map[string]any{"stateAutoOrder": false}, "n": 3.0}, s)
	if s.Get("puppet.ordering", "") != "random" || s.Bool("salt.stateAutoOrder", true) || s.Int("n", 0) != 3 {
		t.Errorf("settings = %v", s)
	}
}

// A container is placed by what it holds, its relationships hang on its
// hidden anchors, and the edges between a member and its own container's
// anchors are not repeated as "runs after/before".
func TestDescribeContainer(t *testing.T) {
	r := &Result{}
	g := &r.Graph
	cls := g.Add(&Node{Ref: "Class[Web]", Kind: "class", Container: true})
	begin := g.Add(&Node{Ref: "begin", Hidden: true, Parent: cls})
	end := g.Add(&Node{Ref: "end", Hidden: true, Parent: cls})
	a := g.Add(&Node{Ref: "Notify[a]", Parent: cls})
	b := g.Add(&Node{Ref: "Notify[b]", Parent: cls})
	x := g.Add(&Node{Ref: "Notify[x]"})
	g.Connect(&Edge{From: begin, To: a, Kind: Order, Reason: "contains"})
	g.Connect(&Edge{From: a, To: end, Kind: Order, Reason: "contains"})
	g.Connect(&Edge{From: begin, To: b, Kind: Order, Reason: "contains"})
	g.Connect(&Edge{From: b, To: end, Kind: Order, Reason: "contains"})
	g.Connect(&Edge{From: end, To: x, Kind: Refresh, Reason: "notify"})
	order, _ := Toposort(g.Nodes, g.Edges, ByIndex)
	run := Run{Name: "site.pp"}
	for _, n := range order {
		if !n.Hidden && !n.Container {
			run.Steps = append(run.Steps, Step{Node: n, Label: n.Ref})
		}
	}
	r.Runs = []Run{run}

	got := Describe(r, cls, nil)
	for _, want := range []string{"Holds 2 steps, run between the **1st and the 2nd of 3**", "Runs before:\n- `Notify[x]` — notify"} {
		if !strings.Contains(got, want) {
			t.Errorf("class hover lacks %q:\n%s", want, got)
		}
	}
	if got := Describe(r, a, nil); strings.Contains(got, "contains") || !strings.Contains(got, "in `Class[Web]`") {
		t.Errorf("member hover repeats its containment:\n%s", got)
	}
	if got := Describe(r, x, nil); !strings.Contains(got, "Refreshed by:\n- `Class[Web]` — notify") {
		t.Errorf("anchors must show as their container:\n%s", got)
	}
	// Where it runs comes before the lists: a hover box shows a few lines.
	for _, n := range []*Node{cls, x} {
		got := Describe(r, n, nil)
		if p, l := strings.Index(got, " of 3**"), strings.Index(got, ":\n- "); p < 0 || l < 0 || p > l {
			t.Errorf("%s: its position must come before its relationships:\n%s", n.Ref, got)
		}
	}
}
