package puppet

import (
	"encoding/binary"
	"slices"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// The order of a patched run, without sorting the run again (issue 25).
//
// orderOf sorts every run a patch touches again: Kahn's algorithm over
// ~3,000 nodes and ~4,000 edges per run of operations-puppet, a quarter of
// the CPU of a resource added to profile::base (300 runs). But a patch
// adds one node v, and every edge it adds starts or ends at v. Kahn's
// process on the new graph is the old one until v is taken, since v only
// holds its successors back: v is ready once the last of its
// predecessors is taken, and is taken at the first step from then on at
// which the old process took a node of a later place (the heap gives the
// lowest place). If the old process took none of v's successors before
// that step, everything after goes on as before, v's edges to them being
// met. So the new order is the old with v put in at that step, and a
// snapshot keeps the sequence its order took (snapOrder.seq) for the
// next patch. When a successor came earlier, a predecessor was left over
// (on or after a cycle), an end is ambiguous (twice), or the snapshot
// keeps no sequence, orderOf sorts the run again.

// packSeq encodes a sequence of places as zigzag varint deltas: Kahn's
// order mostly follows the places, so most take a byte (~3 KB a run).
func packSeq(seq []int32) []byte {
	out := make([]byte, 0, len(seq)+8)
	prev := int32(0)
	for _, q := range seq {
		out = binary.AppendVarint(out, int64(q-prev))
		prev = q
	}
	return out
}

// unpackSeq decodes packSeq's bytes into buf (reused).
func unpackSeq(b []byte, buf []int32) ([]int32, bool) {
	buf = buf[:0]
	prev := int64(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 {
			return nil, false
		}
		prev += d
		buf = append(buf, int32(prev))
		b = b[n:]
	}
	return buf, true
}

// seqHole is what a resource taken out to be replaced (a title typed
// over: patchout.go, then patchSnap) leaves for the order: the sequence
// before, the place it had, and its ordering edges' other ends there
// (orderEnds). A node put in at that place with the same ends makes the
// same graph with the same places, so the same order.
type seqHole struct {
	seq  []byte
	out  int
	ends []int32
}

// orderEnds lists the other ends of the ordering edges at the node v at
// place at of s, as 2*place (a predecessor) or 2*place+1 (a successor),
// sorted; ends not in the order are left out (orderOf ignores their
// edges). False when an end is at two ordered places (orderOf reads
// o.shared then), or v itself is.
func orderEnds(s *runSnap, o *snapOrder, at int, v *analysis.Node) ([]int32, bool) {
	type end struct {
		x    *analysis.Node
		pred bool
		at   int // its place; -1: none ordered
	}
	var ends []end
	for _, e := range s.edges {
		if !e.Kind.Orders() || e.From == e.To {
			continue
		}
		switch {
		case e.To == v:
			ends = append(ends, end{x: e.From, pred: true, at: -1})
		case e.From == v:
			ends = append(ends, end{x: e.To, at: -1})
		}
	}
	for i, sn := range s.nodes {
		if i == at || !o.has(i) {
			if sn.n == v && i != at {
				return nil, false // (twice)
			}
			continue
		}
		for k := range ends {
			if ends[k].x != sn.n {
				continue
			}
			if ends[k].at >= 0 && ends[k].at != i {
				return nil, false
			}
			ends[k].at = i
		}
	}
	out := make([]int32, 0, len(ends))
	for _, e := range ends {
		if e.at >= 0 {
			q := int32(2 * e.at)
			if !e.pred {
				q++
			}
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out, true
}

// insertOrder is the order of ns, the snapshot a patch made by putting
// the node rn in at place ins of a snapshot whose order was prev (its
// sequence, or the hole a replaced resource left); false when orderOf
// must sort it again. It keeps the new sequence in ns.order.
func insertOrder(ns *runSnap, prev *snapOrder, ins int, rn *analysis.Node, sc *runScratch) ([]analysis.Step, bool) {
	o := ns.order
	n := len(ns.nodes)
	if o == nil || prev == nil || ins < 0 || ins >= n || ns.nodes[ins].n != rn || !o.has(ins) {
		return nil, false
	}
	ends, ok := orderEnds(ns, o, ins, rn)
	if !ok {
		return nil, false
	}
	if sc == nil {
		sc = &runScratch{}
	}
	if h := prev.hole; h != nil {
		// (the places of both are the new snapshot's: the one taken out
		// was where the new one is)
		if h.out != ins || !slices.Equal(h.ends, ends) {
			return nil, false
		}
		seq, ok := unpackSeq(h.seq, sc.intBuf(0, 0))
		if !ok {
			return nil, false
		}
		sc.ints[0] = seq
		return orderSteps(ns, o, seq, h.seq, sc), true
	}
	if prev.seq == nil {
		return nil, false
	}
	old, ok := unpackSeq(prev.seq, sc.intBuf(0, 0))
	if !ok || len(old)+1 > n {
		return nil, false
	}
	sc.ints[0] = old
	// where each old place stands in the old sequence (-1: left over)
	pos := sc.intBuf(1, n)
	for i := range pos {
		pos[i] = -1
	}
	for k, q := range old {
		if q < 0 || int(q) >= n-1 || pos[q] >= 0 {
			return nil, false
		}
		pos[q] = int32(k)
	}
	oldAt := func(i int) int { // a new place's old one
		if i > ins {
			return i - 1
		}
		return i
	}
	ready := 0
	for _, e := range ends {
		if e&1 == 0 {
			k := int(pos[oldAt(int(e/2))])
			if k < 0 {
				return nil, false // a predecessor left over: v is too
			}
			ready = max(ready, k+1)
		}
	}
	at := ready
	for at < len(old) && int(old[at]) < ins {
		at++
	}
	for _, e := range ends {
		if e&1 == 1 {
			if k := int(pos[oldAt(int(e/2))]); k >= 0 && k < at {
				return nil, false // a successor taken before v is
			}
		}
	}
	seqNew := sc.intBuf(2, len(old)+1)[:0]
	put := func(q int32) {
		if int(q) >= ins {
			q++
		}
		seqNew = append(seqNew, q)
	}
	for _, q := range old[:at] {
		put(q)
	}
	seqNew = append(seqNew, int32(ins))
	for _, q := range old[at:] {
		put(q)
	}
	sc.ints[2] = seqNew
	return orderSteps(ns, o, seqNew, nil, sc), true
}

// orderSteps is the run's steps from the sequence Kahn's process took
// (then the nodes left over, by place), keeping the sequence in o
// (packed: its bytes when known).
func orderSteps(ns *runSnap, o *snapOrder, seqNew []int32, packed []byte, sc *runScratch) []analysis.Step {
	n := len(ns.nodes)
	done := reuse(sc.done, n)[:n]
	clear(done)
	sc.done = done
	steps := make([]analysis.Step, 0, len(ns.run.Steps)+1) // (the old run's, and v)
	emit := func(i int32) {
		if x := ns.nodes[i].n; !x.Hidden {
			steps = append(steps, analysis.Step{Node: x, Label: x.Ref})
		}
	}
	for _, q := range seqNew {
		done[q] = true
		emit(q)
	}
	for i := 0; i < n; i++ {
		if o.has(i) && !done[i] {
			emit(int32(i))
		}
	}
	if packed == nil {
		packed = packSeq(seqNew)
	}
	o.seq = packed
	return steps
}
