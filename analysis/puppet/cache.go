package puppet

import (
	"fmt"
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

type nref struct {
	def bool    // a class/define/node definition node (recreated by index)
	key nodeKey // for def
	idx int     // into runSnap.nodes otherwise
}

type snapNode struct {
	key    nodeKey
	n      analysis.Node // Parent and Index unset
	parent *nref
}

type snapEdge struct {
	from, to int
	kind     analysis.EdgeKind
	reason   string
	at       source.Span
}

type snapStep struct {
	node        int
	label, note string
}

type snapLink struct {
	at      source.Span
	targets []nref
}

type runSnap struct {
	deps      map[string]string
	nodes     []snapNode
	edges     []snapEdge
	steps     []snapStep
	run       analysis.Run // Steps unset
	diags     []analysis.Diagnostic
	missing   []missingDiag
	links     []snapLink
	declared  []string
	patterns  []string
	absent    bool
	synthetic bool
}

// dep records an input of the current run.
func (a *analyzer) dep(key, value string) {
	if a.cur != nil && a.cur.deps != nil {
		a.cur.deps[key] = value
	}
}

func astID(fi *fileInfo) string {
	if fi == nil {
		return ""
	}
	return fi.uri + "@" + fmt.Sprintf("%p", fi.ast)
}

var contentSeed = maphash.MakeSeed()

func (a *analyzer) contentID(path string) string {
	f := a.ws.Lookup(path)
	if f == nil {
		return "-"
	}
	return strconv.FormatUint(maphash.Bytes(contentSeed, f.Text), 16)
}

// depValue recomputes an input's current value.
func (a *analyzer) depValue(key string) string {
	kind, name, _ := strings.Cut(key, ":")
	switch kind {
	case "f":
		return astID(a.byURI[name])
	case "c":
		if ci := a.classes[name]; ci != nil {
			return astID(ci.file)
		}
		a.autoload(name)
		if ci := a.classes[name]; ci != nil {
			return astID(ci.file)
		}
		return ""
	case "d":
		if d := a.defines[name]; d != nil {
			return astID(d.file)
		}
		a.autoload(name)
		if d := a.defines[name]; d != nil {
			return astID(d.file)
		}
		return ""
	case "t":
		return strconv.FormatBool(a.rubyType(name))
	case "m":
		return strconv.FormatBool(a.moduleKnown(name))
	case "p":
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
	s := &runSnap{deps: r.deps, run: run, diags: append([]analysis.Diagnostic(nil), r.diags...), missing: r.missing,
		absent: r.absent, synthetic: r.synthetic, declared: declared, patterns: patterns}
	s.run.Steps = nil
	local := map[*analysis.Node]int{}
	var add func(n *analysis.Node) int
	add = func(n *analysis.Node) int {
		if i, ok := local[n]; ok {
			return i
		}
		key, ok := a.keyOf[n]
		if !ok {
			return -1
		}
		i := len(s.nodes)
		local[n] = i
		c := *n
		c.Parent, c.Index = nil, 0
		c.Facts = append([]analysis.Fact(nil), n.Facts...)
		s.nodes = append(s.nodes, snapNode{key: key, n: c})
		if n.Parent != nil {
			if pr := a.refOf(n.Parent, local, add); pr != nil {
				s.nodes[i].parent = pr
			}
		}
		return i
	}
	for _, n := range g.nodes {
		add(n)
	}
	for _, n := range g.extra {
		add(n)
	}
	for _, e := range g.edges {
		f, t := add(e.From), add(e.To)
		if f < 0 || t < 0 {
			continue
		}
		s.edges = append(s.edges, snapEdge{f, t, e.Kind, e.Reason, e.At})
	}
	for _, st := range run.Steps {
		if i := add(st.Node); i >= 0 {
			s.steps = append(s.steps, snapStep{i, st.Label, st.Note})
		}
	}
	for _, l := range links {
		sl := snapLink{at: l.at}
		for _, t := range l.targets {
			if pr := a.refOf(t, local, add); pr != nil {
				sl.targets = append(sl.targets, *pr)
			}
		}
		s.links = append(s.links, sl)
	}
	a.nextCache[r.name] = s
}

type snapLinkSrc struct {
	at      source.Span
	targets []*analysis.Node
}

func (a *analyzer) refOf(n *analysis.Node, local map[*analysis.Node]int, add func(*analysis.Node) int) *nref {
	if k, ok := a.defKey[n]; ok {
		return &nref{def: true, key: k}
	}
	if i := add(n); i >= 0 {
		return &nref{idx: i}
	}
	return nil
}

// restore replays a snapshot into this analysis.
func (a *analyzer) restore(name string, s *runSnap) analysis.Run {
	nodes := make([]*analysis.Node, len(s.nodes))
	var get func(i int) *analysis.Node
	resolve := func(r nref) *analysis.Node {
		if r.def {
			return a.defNodes[r.key]
		}
		return get(r.idx)
	}
	get = func(i int) *analysis.Node {
		if nodes[i] != nil {
			return nodes[i]
		}
		sn := &s.nodes[i]
		var parent *analysis.Node
		if sn.parent != nil && !(!sn.parent.def && sn.parent.idx == i) {
			parent = resolve(*sn.parent)
		}
		n := a.node(sn.key, func() *analysis.Node {
			c := sn.n
			c.Facts = append([]analysis.Fact(nil), sn.n.Facts...)
			c.Parent = parent
			return &c
		})
		for _, f := range sn.n.Facts {
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
		nodes[i] = n
		return n
	}
	for i := range s.nodes {
		get(i)
	}
	g := &runGraph{}
	for _, e := range s.edges {
		a.edge(g, nodes[e.from], nodes[e.to], e.kind, e.reason, e.at)
	}
	out := s.run
	out.Steps = make([]analysis.Step, len(s.steps))
	for i, st := range s.steps {
		out.Steps[i] = analysis.Step{Node: nodes[st.node], Label: st.label, Note: st.note}
	}
	for _, d := range s.diags {
		a.addDiag(d)
	}
	for _, l := range s.links {
		var ts []*analysis.Node
		for _, t := range l.targets {
			if n := resolve(t); n != nil {
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
	a.nextCache[name] = s
	a.runsBuilt++
	a.restored++
	return out
}
