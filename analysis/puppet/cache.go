package puppet

import (
	"hash/maphash"
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Run cache (language server only). A run records what it read: the
// files it evaluated (by syntax-tree identity: the parse cache returns the
// same tree for unchanged text), which file defined each class and define
// it looked up, the Hiera files it read (by content), and the ruby-type
// and module probes. The next analysis restores a run whose inputs are all
// unchanged from a snapshot instead of evaluating it again: an edit in one
// file re-evaluates only the runs that read that file.

// runSnap keeps a finished run's output. Nodes and edges of a finished
// analysis are never modified again, so the snapshot holds them directly
// and restore copies them into the new graph.
type runSnap struct {
	deps      map[depKey]string
	nodes     []*analysis.Node // the run's nodes (old graph)
	keys      []nodeKey        // parallel to nodes
	defs      map[*analysis.Node]nodeKey
	edges     []*analysis.Edge
	locals    map[*analysis.Edge]bool
	run       analysis.Run // Steps point at old nodes
	diags     []analysis.Diagnostic
	missing   []missingDiag
	links     []snapLinkSrc
	declared  []string
	patterns  []string
	absent    bool
	synthetic bool
}

// depKey names an input of a run: kind 'f' file, 'c' class, 'd' define,
// 'm' module probe, 't' ruby type probe, 'p' data file.
type depKey struct {
	kind byte
	name string
}

// dep records an input of the current run (value is computed only the
// first time).
func (a *analyzer) dep(kind byte, name string, value func() string) {
	if a.cur == nil || a.cur.deps == nil {
		return
	}
	k := depKey{kind, name}
	if _, ok := a.cur.deps[k]; !ok {
		a.cur.deps[k] = value()
	}
}

func astID(fi *fileInfo) string {
	if fi == nil {
		return ""
	}
	return fi.id
}

var contentSeed = maphash.MakeSeed()

func (a *analyzer) contentID(path string) string {
	m := a.memo
	m.mu.Lock()
	id, ok := m.contentIDs[path]
	m.mu.Unlock()
	if ok {
		return id
	}
	id = "-"
	if f := a.ws.Lookup(path); f != nil {
		id = strconv.FormatUint(maphash.Bytes(contentSeed, f.Text), 16)
	}
	m.mu.Lock()
	m.contentIDs[path] = id
	m.mu.Unlock()
	return id
}

// depValue recomputes an input's current value.
func (a *analyzer) depValue(key depKey) string {
	name := key.name
	switch key.kind {
	case 'f':
		return astID(a.byURI[name])
	case 'c':
		if ci := a.classes[name]; ci != nil {
			return astID(ci.file)
		}
		a.autoload(name)
		if ci := a.classes[name]; ci != nil {
			return astID(ci.file)
		}
		return ""
	case 'd':
		if d := a.defines[name]; d != nil {
			return astID(d.file)
		}
		a.autoload(name)
		if d := a.defines[name]; d != nil {
			return astID(d.file)
		}
		return ""
	case 't':
		return strconv.FormatBool(a.rubyType(name))
	case 'm':
		return strconv.FormatBool(a.moduleKnown(name))
	case 'p':
		return a.contentID(name)
	}
	return "?"
}

// settingsKey: everything outside the files that changes every run.
func (a *analyzer) settingsKey() string {
	keys := make([]string, 0, len(a.req.Settings))
	for k, v := range a.req.Settings {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	k := strings.Join(keys, "\x00")
	if p := a.req.Settings.Get("puppet.facts", ""); p != "" {
		k += "\x00facts=" + a.contentID(p)
	}
	return k + "\x00roots=" + strings.Join(a.ws.Roots(), ":")
}

// cached returns the snapshot of a run whose inputs did not change.
func (a *analyzer) cached(name string) *runSnap {
	if a.strict || a.ordering == "random" || a.prevCache == nil {
		return nil
	}
	s := a.prevCache[name]
	if s == nil {
		return nil
	}
	for k, v := range s.deps {
		if a.depValue(k) != v {
			return nil
		}
	}
	return s
}

// snapshot records a freshly built run for the next analysis.
func (a *analyzer) snapshot(r *run, g *runGraph, run analysis.Run, links []snapLinkSrc, declared, patterns []string) {
	if a.strict || r.deps == nil || a.canceled() {
		return // a canceled run may be partial: never reuse it
	}
	s := &runSnap{deps: r.deps, run: run, diags: r.diags, missing: r.missing, absent: r.absent, synthetic: r.synthetic,
		declared: declared, patterns: patterns, edges: g.edges, locals: g.locals, links: links, defs: map[*analysis.Node]nodeKey{}}
	s.nodes = make([]*analysis.Node, 0, len(g.nodes)+len(g.extra))
	s.keys = make([]nodeKey, 0, cap(s.nodes))
	addDef := func(n *analysis.Node) {
		if n != nil {
			if k, ok := a.defKey[n]; ok {
				s.defs[n] = k
			}
		}
	}
	for _, list := range [][]*analysis.Node{g.nodes, g.extra} {
		for _, n := range list {
			s.nodes = append(s.nodes, n)
			s.keys = append(s.keys, g.keyOf(n, r.name))
			addDef(n.Parent)
		}
	}
	for _, l := range links {
		for _, t := range l.targets {
			addDef(t)
		}
	}
	a.nextCache[r.name] = s
}

type snapLinkSrc struct {
	at      source.Span
	targets []*analysis.Node
}

// restore replays a snapshot into this analysis.
func (a *analyzer) restore(name string, s *runSnap) analysis.Run {
	fresh := make(map[*analysis.Node]*analysis.Node, len(s.nodes))
	mapNode := func(old *analysis.Node) *analysis.Node {
		if old == nil {
			return nil
		}
		if n := fresh[old]; n != nil {
			return n
		}
		if k, ok := s.defs[old]; ok {
			return a.defNodes[k]
		}
		return nil
	}
	for i, old := range s.nodes {
		old := old
		n := a.node(s.keys[i], func() *analysis.Node {
			c := *old
			c.Index = 0
			c.Parent = mapNode(old.Parent)
			c.Facts = append([]analysis.Fact(nil), old.Facts...)
			return &c
		})
		if len(n.Facts) != len(old.Facts) {
			for _, f := range old.Facts {
				dup := false
				for _, g := range n.Facts {
					if g == f {
						dup = true
						break
					}
				}
				if !dup {
					n.Facts = append(n.Facts, f)
				}
			}
		}
		fresh[old] = n
	}
	g := &runGraph{}
	for _, e := range s.edges {
		if s.locals[e] {
			continue
		}
		f, t := mapNode(e.From), mapNode(e.To)
		if f != nil && t != nil {
			a.edge(g, f, t, e.Kind, e.Reason, e.At)
		}
	}
	out := s.run
	out.Steps = make([]analysis.Step, len(s.run.Steps))
	for i, st := range s.run.Steps {
		st.Node = mapNode(st.Node)
		out.Steps[i] = st
	}
	for _, d := range s.diags {
		a.addDiag(d)
	}
	for _, l := range s.links {
		ts := make([]*analysis.Node, 0, len(l.targets))
		for _, t := range l.targets {
			if n := mapNode(t); n != nil {
				ts = append(ts, n)
			}
		}
		a.addLink(l.at, ts)
	}
	for _, k := range s.declared {
		a.declaredKeys[k] = true
	}
	a.declaredPats = append(a.declaredPats, s.patterns...)
	r := &run{a: a, name: name, missing: s.missing, absent: s.absent, synthetic: s.synthetic}
	a.allRuns = append(a.allRuns, r)
	// The restored copy becomes the snapshot for the next analysis.
	ns := *s
	ns.nodes = make([]*analysis.Node, len(s.nodes))
	for i, old := range s.nodes {
		ns.nodes[i] = fresh[old]
	}
	ns.defs = map[*analysis.Node]nodeKey{}
	for _, n := range ns.nodes {
		if n.Parent != nil {
			if k, ok := a.defKey[n.Parent]; ok {
				ns.defs[n.Parent] = k
			}
		}
	}
	ns.edges = make([]*analysis.Edge, 0, len(g.edges))
	ns.locals = nil
	ns.edges = append(ns.edges, g.edges...)
	ns.run = out
	ns.links = make([]snapLinkSrc, len(s.links))
	for i, l := range s.links {
		ts := make([]*analysis.Node, 0, len(l.targets))
		for _, t := range l.targets {
			if n := mapNode(t); n != nil {
				ts = append(ts, n)
				if k, ok := a.defKey[n]; ok {
					ns.defs[n] = k
				}
			}
		}
		ns.links[i] = snapLinkSrc{l.at, ts}
	}
	a.nextCache[name] = &ns
	a.runsBuilt++
	a.restored++
	return out
}
