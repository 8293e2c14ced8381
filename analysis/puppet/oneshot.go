package puppet

import (
	"runtime"
	"runtime/debug"
	"sync"

	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
)

// A one-shot analysis of a single run (`check` or `order` of one
// manifest: the generated 100k-resource one, issue 25) holds at its
// peak the syntax tree, the evaluated catalog and the run's graph at
// once. Two things only other runs could use are not kept for it.

// soleRun: the analysis is one-shot and builds exactly one run, so no
// other run will replay a recorded body (defmemo.go: the memo's slots
// for 10k classes and 10k define instances were 7 MB live and never
// read) and, once the run is evaluated, no run reads a syntax tree.
// Analyze decides it after counting the runs (planSole); forks read the
// main analyzer's answer.
func (a *analyzer) soleRun() bool { return a.main.sole }

// planSole decides soleRun: a one-shot, complete analysis whose runs are
// one manifest's (no class or define nothing declares, no Bolt apply
// block, not one of several per-node analyses of the same system, which
// reuse its parse cache). It records how many files were loaded, so
// that a run that autoloads one (whose classes may need runs of their
// own) keeps its trees.
func (a *analyzer) planSole() {
	defer func() {
		if !a.sole {
			a.resumeGC()
		}
	}()
	if !a.req.Once || a.partial || a.forNode != "" {
		return
	}
	// Every file is parsed: the chunk cache's pages are read. (A small
	// analysis has few to give back, and would read some of them again:
	// `order` of 1,000 resources, 0.5 CPU-ms for 2.5 MB.)
	if a.textSize() >= bigText {
		pp.DropCachePages()
	}
	if !a.strict && a.runsTotal != 1 {
		return
	}
	for _, fi := range a.order {
		if len(fi.applies) > 0 {
			return
		}
	}
	a.sole = true
	a.filesPlanned = len(a.files)
}

// releaseSyntax lets the collector take the syntax trees once the sole
// run is evaluated: its graph is built from the catalog, and the trees
// (59 MB of the 100k-resource manifest) would otherwise stay live beside
// it. What reads a tree later reads only its syntax errors, which are
// kept. The parse cache's entries go too; nothing parses again.
func (w *analyzer) releaseSyntax(r *run) {
	m := w.main
	if !m.sole || m.strict || len(m.files) != m.filesPlanned {
		return
	}
	if w.hoverUnread() {
		keepGraphAttrs(r.resources)
	}
	// Scopes are read while the run is evaluated (variables, defaults,
	// tags), never by its graph: their variable maps go with the trees
	// (the 100k check: 7 MB live while the graph is built).
	for _, x := range r.resources {
		x.scope, x.inner = nil, nil
	}
	m.sys.Released = len(m.files)
	m.sys.mu.Lock()
	for _, fi := range m.files {
		delete(m.sys.parsed, fi.uri)
		delete(m.sys.parsers, fi.uri)
	}
	m.sys.mu.Unlock()
	for _, fi := range m.files {
		fi.ast = &pp.File{Errors: fi.ast.Errors}
		for _, n := range fi.nodes {
			n.def = nil
		}
		fi.applies = nil
	}
	for _, ci := range m.classes {
		ci.def = nil
	}
	for _, d := range m.defines {
		d.def = nil
	}
	// The command line's collector lets the heap grow to five times what
	// is live (cmd/ordering-lsp/memory.go): the trees would be taken only
	// by the collection the graph's growth forces, once the heap holds
	// the trees and much of the graph too.
	//
	// FreeOSMemory, not GC: the pages the trees held that the graph does
	// not take again stay resident otherwise (the 100k-resource manifest:
	// peak RSS 212-213 MB against 219-221 MB, the heap the same).
	if m.textSize() >= bigText {
		debug.FreeOSMemory()
	}
}

// keepGraphAttrs keeps of each resource's attributes those the graph
// reads once the run is evaluated (graphAttr), in their order, in one
// array: the 100k-resource manifest's 176k attributes of 144 bytes, held
// through the building of its graph, are 60k once its contents, modes,
// ensures and messages are gone. Hover facts read others: only for a
// run whose hover nobody reads (hoverUnread). A define instance's
// parameters keep the array they share with its attributes.
func keepGraphAttrs(xs []*res) {
	n := 0
	for _, x := range xs {
		for i := range x.attrs {
			if graphAttr(x.attrs[i].name) {
				n++
			}
		}
	}
	kept := make([]attr, 0, n)
	for _, x := range xs {
		if len(x.attrs) == 0 {
			continue
		}
		from := len(kept)
		for i := range x.attrs {
			if graphAttr(x.attrs[i].name) {
				kept = append(kept, x.attrs[i])
			}
		}
		x.attrs = kept[from:len(kept):len(kept)]
	}
}

// graphAttr: buildRun reads the attribute: a relationship metaparameter
// (metaNames) or what autorequires and generated files look at
// (autorequire.go, generatedFile). A switch, not a map: it is asked
// twice for each of the 100k check's 176k attributes.
func graphAttr(name string) bool {
	switch name {
	case "before", "require", "notify", "subscribe",
		"path", "target", "owner", "group", "gid", "groups",
		"cwd", "command", "onlyif", "unless", "user":
		return true
	}
	return false
}

// A class's body is evaluated once per run (a second declaration finds
// it in the catalog), so a sole run is done with the tree of a class
// body as soon as it is evaluated. The 100k-resource manifest's 10,000
// class bodies are most of its 58 MB of trees, held beside the whole
// catalog at the end of the evaluation (its peak, with the graph's).
// soleBodies lets them go one by one, and collects once, when three
// fifths of the classes are done: what is collected then (the bodies
// evaluated so far) makes room for the rest of the catalog. Earlier, the
// catalog still to come makes the higher peak; later, the collection
// comes on a fuller heap (peak RSS of the 100k check, 4 runs each at
// load 8.5: half 186.1-186.7 MB, three fifths 181.9-182.3, two thirds
// 183.0-184.1, seven tenths 184.7-186.0).
type soleBodies struct {
	dropped   int
	collected bool
	// reparse: a file whose class bodies were dropped, parsed again for
	// a class a later run evaluates (classDef); rare: only files loaded
	// after planSole bring runs after the sole one.
	mu      sync.Mutex
	reparse map[*fileInfo]*pp.File
}

// classEvaluated drops ci's body after a sole run evaluated it. The
// tree is changed in place (the file's statements and its chunks hold
// the same definition): the parse cache forgets the file first, so that
// no later analysis is given the changed tree.
func (a *analyzer) classEvaluated(ci *classInfo) {
	m := a.main
	if !m.sole || m.strict || ci.dropped || ci.def == nil {
		return
	}
	if fi := ci.file; fi != nil && m.sys != nil {
		m.sys.mu.Lock()
		delete(m.sys.parsed, fi.uri)
		delete(m.sys.parsers, fi.uri)
		m.sys.mu.Unlock()
	}
	// The lists are carved from arrays the parser shares between
	// neighbouring chunks (parser/puppet/alloc.go), which the file's
	// other chunks keep: their slots must let go of the body too.
	clear(ci.def.Body)
	clear(ci.def.Params)
	def := *ci.def
	def.Body, def.Params = nil, nil
	*ci.def = def
	ci.dropped = true
	b := &m.bodies
	b.dropped++
	if !b.collected && b.dropped*5 >= len(m.classes)*3 && m.textSize() >= bigText {
		b.collected = true
		runtime.GC()
		m.resumeGC()
	}
}

// classDef is ci's definition with its body, parsed again if a sole run
// dropped it (classEvaluated).
func (a *analyzer) classDef(ci *classInfo) *pp.ClassDef {
	if !ci.dropped {
		return ci.def
	}
	b := &a.main.bodies
	b.mu.Lock()
	defer b.mu.Unlock()
	if a.sys != nil {
		a.sys.Reparsed++
	}
	f := b.reparse[ci.file]
	if f == nil {
		f = (&pp.Parser{}).Parse(ci.file.src.Text)
		if b.reparse == nil {
			b.reparse = map[*fileInfo]*pp.File{}
		}
		b.reparse[ci.file] = f
	}
	var found *pp.ClassDef
	for _, st := range f.Stmts {
		pp.Walk(st, func(n pp.Node) bool {
			if d, ok := n.(*pp.ClassDef); ok && d.Loc == ci.def.Loc {
				found = d
			}
			return found == nil
		})
		if found != nil {
			return found
		}
	}
	panic("puppet: the definition of class " + ci.name + " is not where it was")
}

// holdGC holds the collector off (debug.SetGCPercent(-1)) until the
// release it returns is called (once; holds taken together end with the
// last). A one-shot analysis of one big file takes it from its start to
// its first collection of its own (classEvaluated), or to planSole when
// its run is not sole, or once the run is evaluated: the collections
// the command's pacing makes while the file is parsed find nothing to
// free (the 100k check: 15->17->14 and 72->74->72 MB). The command's
// memory limit still bounds the heap.
func holdGC() (release func()) {
	gcHold.mu.Lock()
	if gcHold.n == 0 {
		gcHold.prev = debug.SetGCPercent(-1)
	}
	gcHold.n++
	gcHold.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcHold.mu.Lock()
			if gcHold.n--; gcHold.n == 0 {
				debug.SetGCPercent(gcHold.prev)
			}
			gcHold.mu.Unlock()
		})
	}
}

var gcHold struct {
	mu   sync.Mutex
	n    int
	prev int
}

// resumeGC ends the analysis's hold on the collector, if it took one.
func (a *analyzer) resumeGC() {
	if r := a.main.gcRelease; r != nil {
		r()
	}
}

// bigText: from this much text in its files (trees ~8x it), a one-shot
// analysis gives back memory as soon as it can, at the price of a
// collection or a system call.
const bigText = 1 << 20

// textSize is the text of the files the analysis loaded.
func (a *analyzer) textSize() int {
	n := 0
	for _, fi := range a.files {
		if fi.src != nil {
			n += len(fi.src.Text)
		}
	}
	return n
}
