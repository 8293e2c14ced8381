package puppet

import (
	"encoding/binary"

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

// insertOrder is the order of ns, the snapshot a patch made by putting
// the node rn in at place ins of a snapshot whose order took the
// sequence seq (its places); false when orderOf must sort it again.
// It keeps the new sequence in ns.order.
func insertOrder(ns *runSnap, seq []byte, ins int, rn *analysis.Node, sc *runScratch) ([]analysis.Step, bool) {
	o := ns.order
	n := len(ns.nodes)
	if o == nil || seq == nil || ins < 0 || ins >= n || ns.nodes[ins].n != rn || !o.has(ins) {
		return nil, false
	}
	// v's ordering edges: the other ends, as the new snapshot's places.
	type end struct {
		x    *analysis.Node
		pred bool
		at   int // its place; -1: none ordered (the edge orders nothing)
	}
	var ends []end
	for _, e := range ns.edges {
		if !e.Kind.Orders() || e.From == e.To {
			continue
		}
		switch {
		case e.To == rn:
			ends = append(ends, end{x: e.From, pred: true, at: -1})
		case e.From == rn:
			ends = append(ends, end{x: e.To, at: -1})
		}
	}
	for i, sn := range ns.nodes {
		if i == ins || !o.has(i) {
			if sn.n == rn && i != ins {
				return nil, false // (twice)
			}
			continue
		}
		for k := range ends {
			if ends[k].x != sn.n {
				continue
			}
			if ends[k].at >= 0 && ends[k].at != i {
				return nil, false // two ordered places: orderOf reads o.shared
			}
			ends[k].at = i
		}
	}
	if sc == nil {
		sc = &runScratch{}
	}
	old, ok := unpackSeq(seq, sc.intBuf(0, 0))
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
		if e.pred && e.at >= 0 {
			k := int(pos[oldAt(e.at)])
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
		if !e.pred && e.at >= 0 {
			if k := int(pos[oldAt(e.at)]); k >= 0 && k < at {
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
	o.seq = packSeq(seqNew)
	return steps, true
}
