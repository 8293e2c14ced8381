package puppet

import "github.com/ordering-lsp/ordering-lsp/analysis"

// What the runs of an analysis hand on to each other (issue 25). A
// server analysis builds hundreds of runs one after the other on each
// worker, and most of what a run allocates is garbage once it is
// snapshotted and merged: the buffers its graph is built in, its nodes
// and edges (the merge shares or copies what it keeps), its resources.
// The next run on the worker takes the same memory. System.PoisonFreed
// overwrites what is given back, so that the tests see a result that
// still held some of it.

// runScratch holds the buffers a worker builds run graphs in: each run
// needs about as much as the one before, and nothing keeps them once the
// run is snapshotted (they were 110 of the 1,810 MB an edit in
// operations-puppet's profile::base allocated).
type runScratch struct {
	live, owner []*res
	nodes       []*analysis.Node
	prio        []pkey
	edges       []*analysis.Edge
	elog        []edgeWhen
	orderEdges  []*analysis.Edge
	links       []snapLinkSrc
	ints        [4][]int32 // toposort's
	seq         []int32    // orderOf's sequence
	res         resArena
	done        []bool
	pos         nodePos // orderOf's
	// factsName's answers for the document namedURI in the analysis
	// namedBy: the nodes of many runs share their facts, and asking each
	// run's anew was a fifth of a patch's time in operations-puppet
	factsNamed map[factsKey]bool
	namedBy    *analyzer
	namedURI   string
	// the catalog's maps of the last run (newRun): a class or define
	// analysed alone has no size to start them at, and growing byKey
	// one rehash after the other was 4% of what a `check` of
	// operations-puppet allocated and 2-3% of its CPU
	byKey, aliases, classes map[string]*res
	resources               []*res // (grown by appending: 20 MB of a check)
}

// keepMaps takes a built run's catalog maps for the next run on the
// worker: nothing reads them once the run is snapshotted (but a strict
// run's, which the analysis keeps).
func (sc *runScratch) keepMaps(r *run) {
	if sc == nil || r == nil || r.a.strict {
		return
	}
	sc.byKey, sc.aliases, sc.classes = r.byKey, r.aliases, r.classes
	sc.resources = r.resources[:cap(r.resources)]
	// (what they held may be garbage: a server keeps its workers'
	// scratch between analyses, and a run's catalog was ~15 MB of its
	// settled RSS on operations-puppet)
	clear(sc.resources)
	clear(sc.byKey)
	clear(sc.aliases)
	clear(sc.classes)
}

// reuse is s emptied, or a new slice when s cannot hold n.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// intBuf is toposort's buffer i of length n, zeroed.
func (sc *runScratch) intBuf(i, n int) []int32 {
	b := sc.ints[i]
	if cap(b) < n {
		b = make([]int32, n)
	} else {
		b = b[:n]
		clear(b)
	}
	sc.ints[i] = b
	return b
}

// keep takes the run's buffers back. What they point at is memory the
// next runs reuse anyway (resArena, slabSet), but the branches the edge
// log names and the links' target lists.
func (sc *runScratch) keep(g *runGraph, live []*res, links []snapLinkSrc) {
	clear(g.elog)
	clear(links)
	sc.live, sc.owner, sc.nodes, sc.prio, sc.edges, sc.elog = live[:0], g.owner[:0], g.nodes[:0], g.prio[:0], g.edges[:0], g.elog[:0]
	sc.links = links[:0]
}

// resArena hands a worker's runs their resources: a run's resources are
// garbage once it is snapshotted (templates of shared evaluation are
// copies, snapshots hold nodes), and the next run on the worker takes
// the same memory (a fifth of what an edit in operations-puppet's
// profile::base allocated was the 300 rebuilt runs' resources).
type resArena struct {
	chunks [][]res
	cur    int // chunk being handed out
	used   int // of chunks[cur]
}

const resChunk = 2048

// take returns n resources side by side, holding whatever they held:
// every caller assigns each whole (clearing them first cost write
// barriers while the collector ran).
func (ar *resArena) take(n int) []res {
	if n > resChunk {
		return make([]res, n)
	}
	if len(ar.chunks) == 0 || ar.used+n > resChunk {
		if len(ar.chunks) > 0 {
			ar.cur++
		}
		if ar.cur == len(ar.chunks) {
			ar.chunks = append(ar.chunks, make([]res, resChunk))
		}
		ar.used = 0
	}
	s := ar.chunks[ar.cur][ar.used : ar.used+n : ar.used+n]
	ar.used += n
	return s
}

// reset takes every resource back for the next run; poisoned, they say
// so (System.PoisonFreed).
func (ar *resArena) reset(poisoned bool) {
	if poisoned {
		for i, c := range ar.chunks {
			end := len(c)
			if i == ar.cur {
				end = ar.used
			} else if i > ar.cur {
				break
			}
			for j := range c[:end] {
				c[j] = res{typ: "Freed", title: "freed", key: "Freed[freed]", display: "Freed[freed]", kind: "resource"}
			}
		}
	}
	ar.cur, ar.used = 0, 0
}

// resSlab is n new resources for the run being built.
func (a *analyzer) resSlab(n int) []res {
	if a.scratch == nil {
		return make([]res, n)
	}
	return a.scratch.res.take(n)
}

func (a *analyzer) newResObj() *res {
	if a.scratch == nil {
		return &res{}
	}
	return &a.scratch.res.take(1)[0]
}

// poison overwrites the nodes and edges of slabs given back, so that a
// result still holding one shows it (System.PoisonFreed, the tests).
func poison(ss *slabSet) {
	for _, sl := range ss.nodes {
		for i := range sl {
			sl[i] = analysis.Node{Kind: "freed", Ref: "Freed[node]", Index: -1}
		}
	}
	for _, sl := range ss.edges {
		for i := range sl {
			sl[i] = analysis.Edge{Reason: "freed"}
		}
	}
}

// mergeNews is merge's buffer of n nodes, zeroed: the merge is
// sequential and keeps none of it.
func (a *analyzer) mergeNews(n int) []*analysis.Node {
	b := a.newsBuf
	if cap(b) < n {
		b = make([]*analysis.Node, n)
	} else {
		b = b[:n]
		clear(b)
	}
	a.newsBuf = b
	return b
}
