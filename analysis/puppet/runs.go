package puppet

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Server runs (no entry file) are independent compilations: each is
// built on a fork of the analyzer that shares the loaded files, classes
// and memo but has a graph, diagnostics and links of its own, then merged
// into the analysis in run order. Forks run on every CPU; the merge is
// sequential and takes the runs in the order a single goroutine would
// have built them, so the result never depends on timing.
//
// A fork never loads a file: the workspace's manifests are all loaded
// before the runs start, but a class autoloaded from a module directory
// outside the workspace would change what later runs see. A fork that
// needs such a file gives up; the merge rebuilds that run itself, loading
// the file as a single goroutine would have, and if anything was loaded,
// the runs after it are built again.

// runSpec is one run to build.
type runSpec struct {
	name      string
	files     []*fileInfo // main manifest (several: an environment's manifests/ folder)
	sel       *nodeInfo   // node definition to compile for, nil: as Puppet picks
	env       bool
	synth     string // "class" or "define": a definition analysed alone
	synthName string
	apply     *applyInfo // a Bolt plan's apply block
}

// runOut is what a fork hands back.
type runOut struct {
	snap     *runSnap
	restored bool // the snapshot comes from the previous analysis
	patched  bool // ... patched (patchrun.go): numbered like the one it was patched from
	panicked any
	slabs    *slabSet // the fork's node and edge slabs, to give back once merged
}

// slabSet: node and edge slabs of forks. A run's nodes and edges are
// garbage once merged: the merge shares or copies what it keeps (but
// the first run built, whose nodes it takes as they are), and making
// them afresh for every one of ~1,100 runs was a fifth of what a `check`
// of operations-puppet allocated (180 of the 1,594 MB an edit in its
// profile::base did): a merged run gives its slabs back and the next
// fork fills them again.
type slabSet struct {
	nodes [][]analysis.Node
	edges [][]analysis.Edge
}

func (a *analyzer) newNodeSlab() []analysis.Node {
	if a.slabs == nil {
		return make([]analysis.Node, 0, 256)
	}
	return takeSlab(&a.main.freeMu, &a.main.freeSlabs.nodes, &a.slabs.nodes, 256)
}

func (a *analyzer) newEdgeSlab() []analysis.Edge {
	if a.slabs == nil {
		return make([]analysis.Edge, 0, 1024)
	}
	return takeSlab(&a.main.freeMu, &a.main.freeSlabs.edges, &a.slabs.edges, 1024)
}

// takeSlab hands out a slab another run gave back (free, under mu), else
// a new one of size, and records it as this fork's (own).
func takeSlab[T any](mu *sync.Mutex, free, own *[][]T, size int) []T {
	mu.Lock()
	var s []T
	if n := len(*free); n > 0 {
		s = (*free)[n-1][:0]
		*free = (*free)[:n-1]
	}
	mu.Unlock()
	if s == nil {
		s = make([]T, 0, size)
	}
	*own = append(*own, s)
	return s
}

// mergeOut merges a run a fork built and takes back its slabs, unless
// the merge adopted its nodes and edges (the first run built).
func (a *analyzer) mergeOut(name string, o *runOut) analysis.Run {
	adopted := !o.restored && a.runsBuilt == 0 && !a.diagsOnly()
	a.mergingRun(name)
	run := a.merge(name, o.snap, !o.restored, o.patched)
	a.curRun = ""
	if o.slabs != nil && !o.restored && !adopted {
		if a.sys != nil && a.sys.PoisonFreed {
			poison(o.slabs)
		}
		a.freeMu.Lock()
		a.freeSlabs.nodes = append(a.freeSlabs.nodes, o.slabs.nodes...)
		a.freeSlabs.edges = append(a.freeSlabs.edges, o.slabs.edges...)
		a.freeMu.Unlock()
		o.slabs = nil
	}
	return run
}

// fork makes an analyzer for one run: shared inputs, private outputs.
func (a *analyzer) fork(frozen bool) *analyzer {
	w := &analyzer{
		sys: a.sys, req: a.req, ws: a.ws, files: a.files, order: a.order, classes: a.classes, defines: a.defines,
		modpath: a.modpath, world: a.world, roots: a.roots, rootMods: a.rootMods, rootNamed: a.rootNamed, certname: a.certname, certnamed: a.certnamed, ordering: a.ordering, strict: a.strict,
		declared: a.declared, prevCache: a.prevCache, defNodes: a.defNodes, byURI: a.byURI,
		facts: a.facts, factsVal: a.factsVal, factsFile: a.factsFile, trustedVal: a.trustedVal, enc: a.enc, encFile: a.encFile, forNode: a.forNode, unpicked: a.unpicked, memo: a.memo, main: a, frozen: frozen, envKey: a.envKey,
		diagKeys: map[string]bool{}, links: map[linkKey]int32{},
		declaredKeys: map[string]string{},
	}
	if a.diagsOnly() || !a.req.Once {
		w.slabs = &slabSet{}
	}
	return w
}

// compute builds (or finds in the previous analysis's cache) one run on a
// fork. Nil: canceled, or the fork needed a file loaded.
func (w *analyzer) compute(sp *runSpec) *runOut {
	if s := w.cached(sp.name); s != nil {
		return &runOut{snap: s, restored: true}
	}
	if s := w.patched(sp.name); s != nil {
		return &runOut{snap: s, restored: true, patched: true}
	}
	if w.wantLoad || w.canceled() {
		return nil
	}
	w.runStarted()
	if w.scratch != nil {
		w.scratch.res.reset(w.sys != nil && w.sys.PoisonFreed)
	}
	var r *run
	switch {
	case sp.apply != nil:
		r = w.evalApply(sp.apply)
	case sp.synth != "":
		r = w.evalSynthetic(sp.synth, sp.synthName)
	default:
		r = w.evalFiles(sp.files, sp.sel, sp.name, sp.env)
	}
	if w.wantLoad {
		return nil
	}
	w.releaseSyntax(r)
	w.resumeGC()
	w.buildRun(r)
	w.scratch.keepMaps(r)
	if w.lastSnap == nil || w.wantLoad {
		return nil
	}
	return &runOut{snap: w.lastSnap, slabs: w.slabs}
}

// computeSafe is compute on a goroutine: a panic is handed to the merge,
// which re-raises it where analysis.Analyze recovers.
func (w *analyzer) computeSafe(sp *runSpec) (out *runOut) {
	defer func() {
		if p := recover(); p != nil {
			out = &runOut{panicked: fmt.Sprintf("%v (run %s)", p, sp.name)}
		}
	}()
	return w.compute(sp)
}

func (a *analyzer) nWorkers() int {
	if a.workers > 0 {
		return a.workers
	}
	return runtime.GOMAXPROCS(0)
}

// runAll builds the runs, forks on every CPU, and merges them in order.
// It stops at the first run that finds the request canceled.
func (a *analyzer) runAll(specs []*runSpec) []analysis.Run {
	out := make([]analysis.Run, 0, len(specs))
	workers := a.nWorkers()
	for i := 0; i < len(specs); {
		if a.canceled() {
			return out
		}
		if workers <= 1 || len(specs)-i == 1 {
			w := a.fork(false)
			if a.seqScratch == nil {
				a.seqScratch = &runScratch{}
			}
			w.scratch = a.seqScratch
			o := w.compute(specs[i])
			if o == nil {
				return out // canceled
			}
			out = append(out, a.mergeOut(specs[i].name, o))
			i++
			continue
		}
		next, ok := a.runParallel(specs[i:], workers, &out)
		if !ok {
			return out
		}
		i += next
	}
	return out
}

// runParallel builds specs on forks and merges them in order until the
// end, a run that needed a file loaded (rebuilt here; the runs after it
// are dropped and the count of runs merged is returned), or
// cancellation (false).
func (a *analyzer) runParallel(specs []*runSpec, workers int, out *[]analysis.Run) (int, bool) {
	n := len(specs)
	outs := make([]*runOut, n)
	done := make([]chan struct{}, n)
	for k := range done {
		done[k] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	if workers > n {
		workers = n
	}
	// A worker may build only so far ahead of the merge: a finished run
	// waiting for its turn holds its whole graph, and unbounded, a slow
	// early run let every later one pile up (2 GB on operations-puppet).
	ahead := make(chan struct{}, 4*workers)
	quit := make(chan struct{})
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &runScratch{}
			for {
				select {
				case ahead <- struct{}{}:
				case <-quit:
					return
				}
				k := int(next.Add(1)) - 1
				if k >= n || stop.Load() || a.canceled() {
					return
				}
				w := a.fork(true)
				w.scratch = sc
				outs[k] = w.computeSafe(specs[k])
				close(done[k])
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	halt := func() {
		stop.Store(true)
		close(quit)
		<-finished
	}
	// merged hands run k to the analysis and lets a worker start another.
	merged := func(k int, o *runOut) {
		*out = append(*out, a.mergeOut(specs[k].name, o))
		outs[k] = nil
		select {
		case <-ahead:
		default: // built after the workers stopped
		}
	}
	for k := 0; k < n; k++ {
		select {
		case <-done[k]:
		case <-finished:
			select {
			case <-done[k]:
			default: // never started: the workers stopped (canceled)
			}
		}
		o := outs[k]
		if o != nil && o.panicked != nil {
			halt()
			panic(o.panicked)
		}
		if a.canceled() {
			halt()
			return 0, false
		}
		if o == nil {
			// The fork needed a file loaded: stop the others, build this
			// run here (loading as one goroutine would), and if something
			// was loaded, build the later runs again.
			halt()
			loaded := len(a.order)
			o = a.fork(false).compute(specs[k])
			if o == nil {
				return 0, false
			}
			merged(k, o)
			if len(a.order) != loaded {
				return k + 1, true
			}
			// Nothing was loaded after all: go on with what is built and
			// build the rest one by one.
			for k++; k < n; k++ {
				o := outs[k]
				if o == nil {
					if a.canceled() {
						return 0, false
					}
					o = a.fork(false).compute(specs[k])
					if o == nil {
						return 0, false
					}
				} else if o.panicked != nil {
					panic(o.panicked)
				}
				merged(k, o)
				if len(a.order) != loaded {
					return k + 1, true
				}
			}
			return n, true
		}
		merged(k, o)
	}
	<-finished
	return n, true
}

// envList names the files of the environment's main manifest folder (the
// set is an input of its runs: a file added there changes them).
func (a *analyzer) envList() string { return a.main.envKey }

// nameNodeRuns gives the runs of node definitions of one name (`node
// default` written in several files of manifests/, which Puppet refuses)
// names of their own: a run's name keys its snapshot, and two runs of one
// name restored each other's (nyudlts/puppet-control-repo: a second
// analysis of an unchanged workspace gave other orders).
func (a *analyzer) nameNodeRuns(specs []*runSpec) {
	n := make(map[string]int, len(specs))
	for _, sp := range specs {
		n[sp.name]++
	}
	for _, sp := range specs {
		if n[sp.name] < 2 || sp.sel == nil || sp.sel.def == nil || sp.sel.file == nil {
			continue
		}
		at := source.Span{URI: sp.sel.file.uri, Start: sp.sel.def.Loc.Pos}
		sp.name = strings.TrimSuffix(sp.name, ")") + fmt.Sprintf(" at %s:%d)", a.displayPath(at.URI), a.line(at))
	}
}
