package puppet

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// TestInsertOrderIsOrderOf: the order a patch gets by putting its node
// into the old order's sequence (insertOrder) is the order orderOf sorts
// from scratch, on random runs (edges between random places, some of
// them against the places, some cycles, hidden and unordered nodes) and
// random nodes put in with random predecessors and successors; and when
// insertOrder declines, orderOf is what the patch uses. Both outcomes
// must occur, or the test says nothing.
func TestInsertOrderIsOrderOf(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	fast, slow := 0, 0
	for round := 0; round < 3000; round++ {
		n := 2 + rng.Intn(40)
		s := randomSnap(rng, n)
		if _, cyc := orderOf(s, s.edges, nil, -1); cyc {
			t.Fatal("no probe, no cycle")
		}
		seq := s.order.seq
		if seq == nil {
			t.Fatal("orderOf kept no sequence")
		}
		ins := rng.Intn(n + 1)
		rn := &analysis.Node{Ref: "New[v]", Index: ins}
		ns := &runSnap{run: s.run}
		ns.nodes = slices.Insert(slices.Clone(s.nodes), ins, snapNode{rn, 'R'})
		ns.edges = slices.Clone(s.edges)
		for k := rng.Intn(4); k > 0; k-- { // predecessors
			ns.edges = append(ns.edges, &analysis.Edge{From: s.nodes[rng.Intn(n)].n, To: rn, Kind: analysis.Order})
		}
		for k := rng.Intn(4); k > 0; k-- { // successors
			ns.edges = append(ns.edges, &analysis.Edge{From: rn, To: s.nodes[rng.Intn(n)].n, Kind: analysis.Order})
		}
		rng.Shuffle(len(ns.edges), func(i, j int) { ns.edges[i], ns.edges[j] = ns.edges[j], ns.edges[i] })
		newOrder := func() *snapOrder {
			o := &snapOrder{ordered: make([]uint64, (n+1+63)/64)}
			for i := 0; i <= n; i++ {
				j := i
				if i > ins {
					j = i - 1
				}
				if i == ins || s.order.has(j) {
					o.ordered[i>>6] |= 1 << (i & 63)
				}
			}
			return o
		}
		ns.order = newOrder()
		got, ok := insertOrder(ns, s.order, ins, rn, &runScratch{})
		fresh := &runSnap{run: s.run, nodes: ns.nodes, edges: ns.edges, order: newOrder()}
		want, cyc := orderOf(fresh, fresh.edges, nil, ins)
		if !ok {
			slow++
			continue
		}
		fast++
		if cyc {
			t.Fatalf("round %d: insertOrder ordered a node on a cycle", round)
		}
		if g, w := labels(got), labels(want); !slices.Equal(g, w) {
			t.Fatalf("round %d (n %d, ins %d):\n got  %v\n want %v", round, n, ins, g, w)
		}
		if !slices.Equal(ns.order.seq, fresh.order.seq) {
			t.Fatalf("round %d: sequence kept differs from orderOf's", round)
		}
	}
	if fast < 500 || slow < 100 {
		t.Fatalf("insertOrder answered %d times, declined %d: the cases do not cover both", fast, slow)
	}
}

// randomSnap is a run of n nodes (~10% hidden, ~5% unordered) and random
// ordering edges, most from an earlier place to a later one.
func randomSnap(rng *rand.Rand, n int) *runSnap {
	s := &runSnap{order: &snapOrder{ordered: make([]uint64, (n+63)/64)}}
	for i := 0; i < n; i++ {
		nd := &analysis.Node{Ref: fmt.Sprintf("N[%d]", i), Index: i, Hidden: rng.Intn(10) == 0}
		s.nodes = append(s.nodes, snapNode{nd, 'R'})
		if rng.Intn(20) != 0 {
			s.order.ordered[i>>6] |= 1 << (i & 63)
		}
	}
	for k := rng.Intn(2 * n); k > 0; k-- {
		f, t := rng.Intn(n), rng.Intn(n)
		if f > t && rng.Intn(8) != 0 {
			f, t = t, f
		}
		kind := analysis.Order
		if rng.Intn(10) == 0 {
			kind = analysis.Refresh
		}
		s.edges = append(s.edges, &analysis.Edge{From: s.nodes[f].n, To: s.nodes[t].n, Kind: kind})
	}
	return s
}

func labels(steps []analysis.Step) []string {
	out := make([]string, len(steps))
	for i, st := range steps {
		out[i] = st.Label
	}
	return out
}

// TestReplacedOrderIsOrderOf: a resource replaced by one with the same
// ordering edges at its place (a title typed over) keeps the order;
// insertOrder answers so from the hole the first left, and declines when
// the new one's edges differ. Checked against orderOf on random runs.
func TestReplacedOrderIsOrderOf(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	same, other := 0, 0
	for round := 0; round < 2000; round++ {
		n := 2 + rng.Intn(40)
		s := randomSnap(rng, n)
		orderOf(s, s.edges, nil, -1)
		out := rng.Intn(n)
		v := s.nodes[out].n
		if !s.order.has(out) {
			continue
		}
		ends, ok := orderEnds(s, s.order, out, v)
		if !ok {
			t.Fatalf("round %d: no ends", round)
		}
		rn := &analysis.Node{Ref: "New[v]", Index: out}
		ns := &runSnap{run: s.run, nodes: slices.Clone(s.nodes)}
		ns.nodes[out] = snapNode{rn, 'R'}
		keep := rng.Intn(2) == 0
		for _, e := range s.edges {
			switch {
			case e.From == v && e.To == v:
			case e.From == v:
				if keep {
					ns.edges = append(ns.edges, &analysis.Edge{From: rn, To: e.To, Kind: e.Kind})
				}
			case e.To == v:
				if keep {
					ns.edges = append(ns.edges, &analysis.Edge{From: e.From, To: rn, Kind: e.Kind})
				}
			default:
				ns.edges = append(ns.edges, e)
			}
		}
		if !keep {
			for k := rng.Intn(3); k > 0; k-- {
				ns.edges = append(ns.edges, &analysis.Edge{From: s.nodes[rng.Intn(n)].n, To: rn, Kind: analysis.Order})
			}
		}
		ns.order = &snapOrder{ordered: slices.Clone(s.order.ordered)}
		hole := &snapOrder{hole: &seqHole{seq: s.order.seq, out: out, ends: ends}}
		got, ok := insertOrder(ns, hole, out, rn, &runScratch{})
		if !ok {
			if keep {
				t.Fatalf("round %d: the same edges at the same place, declined", round)
			}
			continue
		}
		fresh := &runSnap{run: s.run, nodes: ns.nodes, edges: ns.edges, order: &snapOrder{ordered: slices.Clone(s.order.ordered)}}
		want, _ := orderOf(fresh, fresh.edges, nil, -1)
		if g, w := labels(got), labels(want); !slices.Equal(g, w) {
			t.Fatalf("round %d (n %d, out %d, same edges %v):\n got  %v\n want %v", round, n, out, keep, g, w)
		}
		if !slices.Equal(ns.order.seq, fresh.order.seq) {
			t.Fatalf("round %d: sequence kept differs from orderOf's", round)
		}
		if keep {
			same++
		} else {
			other++
		}
	}
	if same < 500 {
		t.Fatalf("only %d replacements answered", same)
	}
}
