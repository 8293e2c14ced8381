package puppet

import (
	"runtime/debug"

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
func (w *analyzer) releaseSyntax() {
	m := w.main
	if !m.sole || m.strict || len(m.files) != m.filesPlanned {
		return
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
