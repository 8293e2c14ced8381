package puppet

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func (a *analyzer) newRun(name, entry string) *run {
	hint := 0
	if s := a.prevSnap(name); s != nil {
		hint = len(s.run.Steps) // the size of this run last time
	}
	if a.runsBuilt == 0 {
		a.firstRun = name // the anchors of firstKeys carry it
	}
	r := &run{a: a, name: name, entry: entry, byKey: make(map[string]*res, hint), aliases: map[string]*res{}, classes: map[string]*res{}, stages: map[string]*res{}, strict: a.strict}
	if !a.strict {
		r.deps = map[depKey]string{}
	}
	a.cur = r
	st := r.newRes("Stage", "main", "stage", source.Span{})
	r.add(st)
	r.stages["main"] = st
	m := r.newRes("Class", "main", "main", source.Span{})
	m.display = "Class[Main]" // how Puppet prints its anchors
	r.add(m)
	r.classes["main"] = m
	r.main = m
	r.top = newScope(nil, nil, m, "")
	m.inner = r.top
	return r
}

// runFile simulates `puppet apply FILE`; sel picks one node definition
// (server mode), nil picks as Puppet would for the certname.
func (a *analyzer) runFile(fi *fileInfo, sel *nodeInfo, name string) analysis.Run {
	return a.buildRun(a.evalFiles([]*fileInfo{fi}, sel, name, false))
}

// evalFiles evaluates files as one main manifest (Puppet's `manifest`
// setting may name a directory: its files are evaluated in order).
func (a *analyzer) evalFiles(fis []*fileInfo, sel *nodeInfo, name string, envRun bool) *run {
	r := a.newRun(name, fis[0].uri)
	var nodes []*nodeInfo
	for _, fi := range fis {
		fi := fi
		a.dep('f', fi.uri, func() string { return astID(fi) })
	}
	if envRun {
		a.dep('F', "", a.envList)
	}
	for _, fi := range fis {
		e := &env{sc: r.top, f: fi}
		r.stmts(e, fi.ast.Stmts)
		nodes = append(nodes, fi.nodes...)
	}
	if len(nodes) > 0 {
		n := sel
		if n == nil {
			n = pickNode(nodes, a.certname)
		}
		if n == nil && !a.strict && len(nodes) == 1 {
			n = nodes[0]
		}
		if n == nil {
			r.diag(a.span(nodes[0].file, nodes[0].def.Loc), analysis.Error, "no-node",
				fmt.Sprintf("Could not find node statement with name 'default' or '%s'", a.certname))
		} else {
			nr := r.newRes("Node", n.name, "node", n.node.Decl)
			nr.container = r.main
			nr.scope = r.top
			r.add(nr)
			nr.node = n.node
			sc := newScope(r.top, r.top, nr, "")
			nr.inner = sc
			r.stmts(&env{sc: sc, f: n.file, sym: n.node}, n.def.Body)
		}
	}
	r.finish()
	return r
}

func pickNode(nodes []*nodeInfo, cert string) *nodeInfo {
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			if s, ok := m.(*pp.Str); ok && strings.EqualFold(s.Value, cert) {
				return n
			}
		}
	}
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			if re, ok := m.(*pp.Regex); ok {
				if rx, err := compileRegex(re.Value); err == nil && rx.MatchString(cert) {
					return n
				}
			}
		}
	}
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			if _, ok := m.(*pp.Default); ok {
				return n
			}
		}
	}
	return nil
}

// evalSynthetic evaluates `include x` or `x { 'title': }` alone.
func (a *analyzer) evalSynthetic(kind, name string) *run {
	r := a.newRun(kind+" "+name, "")
	r.strict = false
	r.synthetic = true
	if kind == "class" {
		ci := a.classes[name]
		e := &env{sc: r.top, f: ci.file}
		r.declareClass(e, name, a.span(ci.file, ci.def.NameLoc), "include", nil)
	} else {
		d := a.defines[name]
		a.dep('d', name, func() string { return astID(d.file) })
		x := r.newRes(capType(name), "title", "define", a.span(d.file, d.def.NameLoc))
		x.define = d
		x.scope = r.top
		x.container = r.main
		x.parentSym = d.node
		x.synthetic = true
		r.add(x)
		r.pending = append(r.pending, x)
	}
	r.finish()
	return r
}

// ---- the relationship graph of one run ----

type pkey struct {
	h   string
	p   int
	sub int8
}

type runGraph struct {
	r     *run
	nodes []*analysis.Node
	prio  []pkey  // parallel to nodes
	owner []*res  // parallel to nodes
	loc   []int32 // node.Index -> 1 + its position in nodes (0: not in the run)
	edges []*analysis.Edge
	// outEnd: len(edges) once containment was complete (redirectGenerated
	// redirects the edges that existed then).
	outEnd    int
	explicit  map[[2]*analysis.Node]bool
	hardCycle bool
	// econd: the branches each edge needs (nil: none), when the run
	// evaluated undecided conditionals (cond.go).
	econd     map[*analysis.Edge][]*branch
	conds     condSets
	extra     []*analysis.Node // visible nodes outside the order (define instances)
	generated [][2]*analysis.Node
}

// add puts a node into the run's order with its priority and owner.
func (g *runGraph) add(n *analysis.Node, k pkey, x *res) {
	if n.Index >= len(g.loc) {
		size := 2*len(g.loc) + 64
		if size <= n.Index {
			size = n.Index + 64
		}
		loc := make([]int32, size)
		copy(loc, g.loc)
		g.loc = loc
	}
	if i := g.local(n); i >= 0 {
		// The same node twice (never expected): it keeps one priority
		// and owner, the last given, as a map keyed by node would.
		g.prio[i], g.owner[i] = k, x
	}
	g.nodes = append(g.nodes, n)
	g.prio = append(g.prio, k)
	g.owner = append(g.owner, x)
	g.loc[n.Index] = int32(len(g.nodes))
}

// local is a node's position in the run's order, or -1.
func (g *runGraph) local(n *analysis.Node) int32 {
	if n.Index < len(g.loc) {
		if i := g.loc[n.Index] - 1; i >= 0 && g.nodes[i] == n {
			return i
		}
	}
	return -1
}

func (g *runGraph) ownerOf(n *analysis.Node) *res {
	if i := g.local(n); i >= 0 {
		return g.owner[i]
	}
	return nil
}

// less orders two positions as Puppet's prioritizer does: catalog
// position (after the title hash for the old orderings).
func (g *runGraph) less(i, j int32) bool {
	a, b := &g.prio[i], &g.prio[j]
	if a.h != b.h {
		return a.h < b.h
	}
	if a.p != b.p {
		return a.p < b.p
	}
	if a.sub != b.sub {
		return a.sub < b.sub
	}
	return g.nodes[i].Index < g.nodes[j].Index
}

var metaNames = [...]string{"before", "require", "notify", "subscribe"}

func hasMetaparam(as []attr) bool {
	for i := range as {
		switch as[i].name {
		case "before", "require", "notify", "subscribe":
			return true
		}
	}
	return false
}

// first and last are what an edge to / from a resource attaches to: a
// container's anchors, or the resource itself.
func (x *res) first() *analysis.Node {
	if x.begin != nil {
		return x.begin
	}
	return x.node
}

func (x *res) last() *analysis.Node {
	if x.end != nil {
		return x.end
	}
	return x.node
}

// node returns the node for key, shared between the runs of one
// analysis. Keys are unique within a run, so the map is only built once a
// second run (or a restored one) starts.
func (a *analyzer) node(key nodeKey, mk func() *analysis.Node) *analysis.Node {
	if n := a.findNode(key); n != nil {
		return n
	}
	n := mk()
	a.addNode(key, n)
	return n
}

// findNode returns the node an earlier run made for key.
func (a *analyzer) findNode(key nodeKey) *analysis.Node {
	if a.runsBuilt == 0 {
		return nil
	}
	if a.firstKeys != nil {
		for _, sn := range a.firstKeys {
			if k := sn.key(a.firstRun); !a.runLocal(k) {
				a.nodeKeys[k] = sn.n
			}
		}
		a.firstKeys = nil
	}
	if a.runLocal(key) {
		return nil
	}
	return a.nodeKeys[key]
}

func (a *analyzer) addNode(key nodeKey, n *analysis.Node) {
	a.graph.Add(n)
	if a.runsBuilt == 0 {
		a.firstKeys = append(a.firstKeys, snapNode{n, key.kind})
		return
	}
	if !a.runLocal(key) {
		a.nodeKeys[key] = n
	}
}

// nodeFor returns the node an earlier run made for key, or a new zero
// node already in the graph (fresh) for the caller to fill in (keeping
// its Index).
func (a *analyzer) nodeFor(key nodeKey) (*analysis.Node, bool) {
	if n := a.findNode(key); n != nil {
		return n, false
	}
	if len(a.nodeSlab) == cap(a.nodeSlab) {
		a.nodeSlab = make([]analysis.Node, 0, 256)
	}
	a.nodeSlab = append(a.nodeSlab, analysis.Node{})
	n := &a.nodeSlab[len(a.nodeSlab)-1]
	a.addNode(key, n)
	return n, true
}

// newEdge allocates edges in slabs: a 10k-resource catalog has tens of
// thousands of them.
func (a *analyzer) newEdge(e analysis.Edge) *analysis.Edge {
	if len(a.edgeSlab) == cap(a.edgeSlab) {
		a.edgeSlab = make([]analysis.Edge, 0, 1024)
	}
	a.edgeSlab = append(a.edgeSlab, e)
	return &a.edgeSlab[len(a.edgeSlab)-1]
}

// edge adds an edge to the run and to the shared graph; runs that share
// nodes share edges (the map is only built once a second run exists).
func (a *analyzer) edge(g *runGraph, from, to *analysis.Node, kind analysis.EdgeKind, reason string, at source.Span) *analysis.Edge {
	var e *analysis.Edge
	if a.runsBuilt == 0 {
		e = a.graph.Connect(a.newEdge(analysis.Edge{From: from, To: to, Kind: kind, Reason: reason, At: at}))
	} else {
		k := edgeKey{from, to, kind, at}
		e = a.sharedEdges()[k]
		if e == nil {
			e = a.graph.Connect(a.newEdge(analysis.Edge{From: from, To: to, Kind: kind, Reason: reason, At: at}))
			a.edgeKeys[k] = e
		}
	}
	if g != nil {
		g.edges = append(g.edges, e)
	}
	return e
}

// runLocal: a key no other run can make (a container's anchors carry
// their run's name), when run names are unique.
func (a *analyzer) runLocal(key nodeKey) bool {
	return a.uniqueRuns && (key.kind == 'A' || key.kind == 'Z')
}

func (a *analyzer) sharedEdges() map[edgeKey]*analysis.Edge {
	if a.edgeKeys == nil {
		a.edgeKeys = make(map[edgeKey]*analysis.Edge, max(len(a.graph.Edges), a.sys.lastEdgeKeys))
		for _, e := range a.graph.Edges {
			a.edgeKeys[edgeKey{e.From, e.To, e.Kind, e.At}] = e
		}
	}
	return a.edgeKeys
}

func spanKey(s source.Span) string {
	return s.URI + "#" + strconv.Itoa(s.Start) + "-" + strconv.Itoa(s.End)
}

func (x *res) containerish() bool {
	return x.kind == "class" || x.kind == "define" || x.kind == "stage" || x.kind == "main" || x.kind == "node" || x.typ == "Stage"
}

// defineInstanceFacts is the hover line of every defined type instance,
// one slice for all (len = cap: a node that adds a fact reallocates).
var defineInstanceFacts = []analysis.Fact{{Label: "defined type instance", Value: "its body is evaluated after the main code; it is ordered as a container (before/after everything it declares)"}}

func (a *analyzer) buildRun(r *run) analysis.Run {
	g := &runGraph{r: r, explicit: map[[2]*analysis.Node]bool{}}
	salt := ""
	switch a.ordering {
	case "random":
		salt = a.req.Settings.Get("puppet.seed", strconv.FormatInt(time.Now().UnixNano(), 10))
	}
	hashOf := func(ref string) string {
		if a.ordering == "title-hash" {
			s := sha1.Sum([]byte("NaCl, MgSO4 (salts) and then " + ref))
			return hex.EncodeToString(s[:])
		}
		if a.ordering == "random" {
			s := sha1.Sum([]byte(salt + ref))
			return hex.EncodeToString(s[:])
		}
		return ""
	}
	live := make([]*res, 0, len(r.resources))
	var runDeclared, runPats []string
	if a.strict {
		// (server runs are built on forks and merged: see merge)
		a.allRuns = append(a.allRuns, r)
	} else {
		runDeclared = make([]string, 0, len(r.resources))
	}
	est := len(r.resources) + len(r.resources)/2 + 8
	if a.runsBuilt == 0 {
		a.firstKeys = slices.Grow(a.firstKeys, est)
	}
	a.graph.Nodes = slices.Grow(a.graph.Nodes, est)
	a.graph.Edges = slices.Grow(a.graph.Edges, 2*len(r.resources))
	g.nodes = make([]*analysis.Node, 0, est)
	g.prio = make([]pkey, 0, cap(g.nodes))
	g.owner = make([]*res, 0, cap(g.nodes))
	g.edges = make([]*analysis.Edge, 0, 3*len(r.resources)+8)
	for _, x := range r.resources {
		if !x.inCatalog() {
			continue
		}
		live = append(live, x)
		if !a.strict {
			if x.pat {
				runPats = append(runPats, x.typ+"["+x.title+"]")
			} else {
				runDeclared = append(runDeclared, x.key)
			}
		}
		h := hashOf(x.display)
		if x.containerish() {
			if x.typ == "Stage" {
				x.kind = "stage"
				if x.title != "main" {
					r.stages[x.title] = x
				}
			}
			parent := x.parentSym
			if x.class != nil {
				parent = x.class.node
			}
			var fresh bool
			if x.begin, fresh = a.nodeFor(nodeKey{'A', x.display, x.decl, r.name}); fresh {
				*x.begin = analysis.Node{Kind: "anchor", Ref: x.display, Decl: x.decl, Parent: parent, Hidden: true, Index: x.begin.Index}
			}
			if x.end, fresh = a.nodeFor(nodeKey{'Z', x.display, x.decl, r.name}); fresh {
				*x.end = analysis.Node{Kind: "anchor", Ref: x.display, Decl: x.decl, Parent: parent, Hidden: true, Index: x.end.Index}
			}
			g.add(x.begin, pkey{h, x.prio, 0}, x)
			g.add(x.end, pkey{h, x.prio, 1}, x)
			switch {
			case x.class != nil:
				x.node = x.class.node
			case x.kind == "define" || (x.kind == "stage" && !x.decl.IsZero()):
				if x.node, fresh = a.nodeFor(nodeKey{'R', x.display, x.decl, ""}); fresh {
					*x.node = analysis.Node{Kind: "resource", Ref: x.display, Decl: x.decl, Full: x.full, Parent: x.parentSym, Index: x.node.Index}
					if x.kind == "define" {
						x.node.Facts = defineInstanceFacts
					}
				}
				g.extra = append(g.extra, x.node)
			}
			continue
		}
		var fresh bool
		if x.node, fresh = a.nodeFor(nodeKey{'R', x.display, x.decl, ""}); fresh {
			n := x.node
			*n = analysis.Node{Kind: "resource", Ref: x.display, Decl: x.decl, Full: x.full, Parent: x.parentSym, Index: n.Index}
			if x.spec {
				what := "a condition"
				if bs := g.conds.res(x); len(bs) > 0 {
					what = whenText(bs)
				}
				n.Facts = a.conditionFact(what)
			}
			if x.pat {
				n.Facts = append(n.Facts, analysis.Fact{Label: "title", Value: "built from values we do not know; shown as a pattern (* = unknown part)"})
			}
		}
		g.add(x.node, pkey{h, x.prio, 0}, x)
		if x.typ == "Concat_file" {
			a.generatedFile(g, x, h)
		}
	}

	// Containment: admissible -> child -> completed.
	var pbuf [4]*res
	for _, x := range live {
		parents := pbuf[:0]
		switch {
		case x.kind == "stage" && x.title == "main" && x.decl.IsZero():
		case x.kind == "stage":
		case x.kind == "main":
			parents = append(parents, r.stages["main"])
		case x.kind == "class":
			st := r.stages[x.stage]
			if st == nil || !st.inCatalog() {
				if x.stage != "main" {
					r.diag(x.decl, analysis.Error, "unknown-stage", fmt.Sprintf("Could not find stage %s specified by %s", x.stage, x.display))
				}
				st = r.stages["main"]
			}
			parents = append(parents, st)
		default:
			c := x.container
			if c == nil {
				c = r.main
			}
			parents = append(parents, c)
		}
		parents = append(parents, x.also...)
		for _, p := range parents {
			if p == nil || p.begin == nil || !p.inCatalog() {
				continue
			}
			p.hasChild = true
			xs := [...]*res{x}
			if p.decl.IsZero() {
				// Stage[main] / Class[main]: implicit containers, their
				// edges order the run but would only be noise in hovers.
				g.when(a.localEdge(g, p.begin, x.first()), xs[:], nil)
				g.when(a.localEdge(g, x.last(), p.end), xs[:], nil)
				continue
			}
			g.when(a.edge(g, p.begin, x.first(), analysis.Order, "contains", x.decl), xs[:], nil)
			g.when(a.edge(g, x.last(), p.end, analysis.Order, "contains", x.decl), xs[:], nil)
		}
	}
	g.outEnd = len(g.edges)
	// An empty container still orders what is before it before what is after it.
	for _, x := range live {
		if x.begin != nil && !x.hasChild {
			if x.decl.IsZero() {
				a.localEdge(g, x.begin, x.end)
			} else {
				g.when(a.edge(g, x.begin, x.end, analysis.Order, "contains", x.decl), []*res{x}, nil)
			}
		}
	}

	// Metaparameters.
	var tbuf [1]*res
	var vbuf [1]val
	for _, x := range live {
		if !hasMetaparam(x.attrs) {
			continue
		}
		for _, mp := range metaNames {
			vals := relValues(x.attrs, mp)
			for _, av := range vals {
				for _, v := range av.v.items(&vbuf) {
					var targets []*res
					if v.k == vStr && !v.pat {
						// 'Notify[b]' as a string: Puppet still takes it.
						if m := refText.FindStringSubmatch(v.s); m != nil {
							v = val{k: vRef, ref: &ref{typ: capType(m[1]), title: m[2], at: v.at}, at: v.at}
						}
					}
					switch v.k {
					case vRef:
						if v.ref.pat {
							targets = nil
							break
						}
						t, exact := r.resolveBoth(v.ref)
						if t != nil && !exact {
							continue // maybe the resource with a computed title: no edge, no error
						}
						if t == nil || !t.inCatalog() {
							if !(x.define != nil && strings.Contains(x.title, "*")) {
								when := g.conds.res(x)
								if t != nil {
									// Virtual and never realized: the compiler is
									// happy, the agent is not.
									msg := fmt.Sprintf("Could not find dependency %s for %s", refString(v.ref.typ, displayTitle(v.ref)), x.display)
									if len(when) > 0 {
										r.diag(v.at, analysis.Warning, "missing-target", msg+"\nwhen "+whenText(when))
									} else {
										r.diag(v.at, analysis.Error, "missing-target", msg)
									}
								} else {
									r.missingWhen(v.at, v.ref, fmt.Sprintf("Could not find resource '%s' in parameter '%s'", refString(v.ref.typ, displayTitle(v.ref)), mp), when)
								}
							}
							continue
						}
						if when, ok := g.absentWhen(x, t, nil); ok {
							r.missingWhen(v.at, v.ref, fmt.Sprintf("Could not find resource '%s' in parameter '%s'", refString(v.ref.typ, displayTitle(v.ref)), mp), when)
							continue
						}
						tbuf[0] = t
						targets = tbuf[:]
					case vRes:
						targets = v.resList()
					default:
						continue
					}
					kind := metaparams[mp]
					for _, t := range targets {
						var e *analysis.Edge
						if mp == "before" || mp == "notify" {
							e = a.relEdge(g, x.last(), t.first(), kind, mp, v.at)
						} else {
							e = a.relEdge(g, t.last(), x.first(), kind, mp, v.at)
						}
						g.whenDecl(e, x, t)
					}
				}
			}
		}
	}
	// Chaining arrows and the require function.
	for _, rel := range r.rels {
		left := r.operands(g, rel.left, rel, true)
		right := r.operands(g, rel.right, rel, false)
		kind := analysis.Order
		if rel.op == "~>" || rel.op == "<~" {
			kind = analysis.Refresh
		}
		src, dst := left, right
		if rel.op == "<-" || rel.op == "<~" {
			src, dst = right, left
		}
		reason := rel.op
		if rel.op == "require()" {
			reason = "require (function)"
		}
		for _, s := range src {
			for _, d := range dst {
				e := a.relEdge(g, s.last(), d.first(), kind, reason, rel.at)
				g.when(e, []*res{s, d}, rel.cond)
			}
		}
	}
	// Autorequire, unless an explicit edge goes the other way.
	var arBuf []autoreq
	for _, x := range live {
		if x.containerish() {
			continue
		}
		arBuf = r.autorequires(x, arBuf[:0])
		for _, ar := range arBuf {
			if ar.t == x || !ar.t.inCatalog() || ar.t.containerish() {
				continue
			}
			from, to := ar.t.node, x.node
			if len(g.explicit) > 0 && (g.explicit[[2]*analysis.Node{to, from}] || g.explicit[[2]*analysis.Node{from, to}]) {
				continue
			}
			g.whenDecl(a.edge(g, from, to, analysis.Auto, ar.reason, ar.at), x, ar.t)
		}
	}

	g.redirectGenerated(a)
	if a.canceled() {
		// Nobody will read this run (and a canceled run is never cached).
		a.cur = nil
		return analysis.Run{Name: r.name, Entry: r.entry}
	}
	// Order.
	order, stuck := g.toposort()
	run := analysis.Run{Name: r.name, Entry: r.entry}
	visible := 0
	for _, n := range g.nodes {
		if !n.Hidden {
			visible++
		}
	}
	run.Steps = make([]analysis.Step, 0, visible)
	for _, list := range [2][]*analysis.Node{order, stuck} {
		for _, n := range list {
			if n.Hidden {
				continue
			}
			run.Steps = append(run.Steps, analysis.Step{Node: n, Label: n.Ref})
		}
	}
	// Cycles, in Puppet's words (a relationship of a resource with itself
	// is one too: Puppet refuses `Notify[a] -> Notify[a]`).
	if len(stuck) > 0 || g.selfLoop() {
		a.cycles(g)
	}
	a.refreshFacts(g, live)
	// Links.
	var linkSrcs []snapLinkSrc
	for _, l := range r.links {
		var targets []*analysis.Node
		switch {
		case l.class != "":
			if ci := a.classes[l.class]; ci != nil {
				targets = append(targets, ci.node)
			}
		case l.def != "":
			if d := a.defines[l.def]; d != nil {
				targets = append(targets, d.node)
			}
		default:
			for _, rf := range l.refs {
				if rf.typ == "Class" {
					name := canonTitle("Class", rf.title)
					ci := a.classes[name]
					// The target is the class's definition node, which a
					// restored run finds by its name and place: an input.
					a.dep('k', name, func() string { return classPlace(ci) })
					if ci != nil {
						targets = append(targets, ci.node)
					}
					continue
				}
				if rf.pat {
					for _, t := range r.resolvePattern(rf) {
						if t.node != nil {
							targets = append(targets, t.node)
						}
					}
					continue
				}
				if t := r.resolve(rf); t != nil && t.node != nil {
					targets = append(targets, t.node)
				}
			}
		}
		if a.strict {
			a.addLink(l.at, targets)
		} else {
			linkSrcs = append(linkSrcs, snapLinkSrc{l.at, targets})
		}
	}
	if a.strict {
		for _, d := range r.diags {
			a.addDiag(d)
		}
	}
	run.Refused = r.compileErr || g.hardCycle
	if !run.Refused {
		for _, fi := range a.main.order {
			if len(fi.ast.Errors) > 0 && (a.strict || fi.uri == r.entry) {
				run.Refused = true
			}
		}
	}
	a.runsBuilt++
	a.cur = nil
	a.snapshot(r, run, linkSrcs, runDeclared, runPats)
	return run
}

func displayTitle(rf *ref) string {
	if rf.typ == "Class" {
		return classDisplay(rf.title)
	}
	return rf.title
}

func (a *analyzer) relEdge(g *runGraph, from, to *analysis.Node, kind analysis.EdgeKind, reason string, at source.Span) *analysis.Edge {
	if from == nil || to == nil {
		return nil
	}
	g.explicit[[2]*analysis.Node{from, to}] = true
	return a.edge(g, from, to, kind, reason, at)
}

func (a *analyzer) addLink(at source.Span, targets []*analysis.Node) {
	if at.IsZero() {
		return
	}
	k := linkKey{at.URI, at.Start, at.End}
	i, ok := a.links[k]
	if !ok {
		i = int32(len(a.linkArr))
		a.links[k] = i
		a.linkArr = append(a.linkArr, analysis.Link{At: at})
	}
	l := &a.linkArr[i]
	if len(targets) == 0 {
		return
	}
	if len(l.Nodes) == 0 && len(targets) == 1 {
		l.Nodes = targets[:1:1] // callers never change targets; an append copies
		return
	}
	seen := a.linkSeen[k]
	if seen == nil {
		seen = make(map[*analysis.Node]bool, len(targets))
		for _, x := range l.Nodes {
			seen[x] = true
		}
		if a.linkSeen == nil {
			a.linkSeen = map[linkKey]map[*analysis.Node]bool{}
		}
		a.linkSeen[k] = seen
	}
	for _, t := range targets {
		if !seen[t] {
			seen[t] = true
			l.Nodes = append(l.Nodes, t)
		}
	}
}

// relValues applies Puppet's attribute precedence to one metaparameter:
// written values, replaced by `=>` overrides, extended by `+>`; defaults
// only when nothing else set it.
func relValues(attrs []attr, name string) []attr {
	var out []attr
	set := false
	for _, a := range attrs {
		if a.name != name {
			continue
		}
		switch {
		case a.op == "+>":
			out = append(out, a)
			set = true
		case a.from == "default":
			if !set {
				out = append(out, a)
				set = true
			}
		default:
			out = []attr{a}
			set = true
		}
	}
	return out
}

// operands turns a chain operand into catalog resources; missing
// references are Puppet's "Could not find resource ... for relationship".
func (r *run) operands(g *runGraph, v val, rel *relation, left bool) []*res {
	var out []*res
	var lbuf [1]val
	for _, x := range v.items(&lbuf) {
		switch x.k {
		case vRef:
			if x.ref.pat {
				continue
			}
			t, exact := r.resolveBoth(x.ref)
			if t != nil && !exact {
				continue
			}
			if t != nil && !t.inCatalog() {
				continue // a virtual resource: the reference does not realize it, no edge
			}
			var when []*branch
			absent := t == nil
			if absent {
				when = g.conds.of(rel.cond)
			} else {
				when, absent = g.absentWhen(nil, t, rel.cond)
			}
			if absent {
				other := rel.right
				if !left {
					other = rel.left
				}
				od := operandName(other)
				if od == "" {
					od = rel.rightTxt
					if !left {
						od = rel.leftTxt
					}
				}
				name := refString(x.ref.typ, displayTitle(x.ref))
				srcSide := left != (rel.op == "<-" || rel.op == "<~")
				if srcSide {
					r.missingWhen(x.at, x.ref, fmt.Sprintf("Could not find resource '%s' for relationship on '%s'", name, od), when)
				} else {
					r.missingWhen(x.at, x.ref, fmt.Sprintf("Could not find resource '%s' for relationship from '%s'", name, od), when)
				}
				continue
			}
			out = append(out, t)
		case vRes:
			for _, t := range x.resList() {
				if t.inCatalog() {
					out = append(out, t)
				}
			}
		case vCollect:
			for _, t := range x.x.col.matched {
				if t.inCatalog() {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func operandName(v val) string {
	var lbuf [1]val
	for _, x := range v.items(&lbuf) {
		switch x.k {
		case vRef:
			return refString(x.ref.typ, displayTitle(x.ref))
		case vRes:
			if rs := x.resList(); len(rs) > 0 {
				return rs[0].display
			}
		}
	}
	return ""
}

var refText = regexp.MustCompile(`^([A-Za-z][\w:]*)\[(.*)\]$`)

type autoreq struct {
	t      *res
	reason string
	at     source.Span
}

// find is resolveExact without allocating.
func (r *run) find(typ, title string) *res {
	return r.lookup2(typ, title)
}

// autorequires appends to out what Puppet's types require by themselves.
func (r *run) autorequires(x *res, out []autoreq) []autoreq {
	add := func(typ, title, reason string, at source.Span) {
		if t := r.find(typ, title); t != nil {
			out = append(out, autoreq{t, reason, at})
		}
	}
	strs := func(a attr) []string {
		var ss []string
		var lbuf [1]val
		for _, v := range a.v.items(&lbuf) {
			if s, ok := v.text(); ok && s != "" {
				ss = append(ss, s)
			}
		}
		return ss
	}
	switch x.typ {
	case "File":
		p := x.title
		at := x.decl
		if a, ok := x.anyAttr("path"); ok {
			if s, k := a.v.text(); k {
				p, at = s, a.at
			}
		}
		if strings.HasPrefix(p, "/") {
			p = path.Clean(p)
			for d := path.Dir(p); ; d = path.Dir(d) {
				if t := r.find("File", d); t != nil && t != x {
					out = append(out, autoreq{t, "autorequire (parent directory)", at})
					break
				}
				if d == "/" || d == "." {
					break
				}
			}
		}
		// A link waits for its target when that is managed.
		if a, ok := x.anyAttr("target"); ok {
			for _, s := range strs(a) {
				add("File", s, "autorequire (link target)", a.at)
			}
		}
		if a, ok := x.anyAttr("owner"); ok {
			for _, s := range strs(a) {
				add("User", s, "autorequire (owner)", a.at)
			}
		}
		if a, ok := x.anyAttr("group"); ok {
			for _, s := range strs(a) {
				add("Group", s, "autorequire (group)", a.at)
			}
		}
	case "User":
		if a, ok := x.anyAttr("gid"); ok {
			for _, s := range strs(a) {
				add("Group", s, "autorequire (gid)", a.at)
			}
		}
		if a, ok := x.anyAttr("groups"); ok {
			for _, s := range strs(a) {
				for _, g := range strings.Split(s, ",") {
					add("Group", strings.TrimSpace(g), "autorequire (groups)", a.at)
				}
			}
		}
	case "Exec":
		if a, ok := x.anyAttr("cwd"); ok {
			for _, s := range strs(a) {
				add("File", s, "autorequire (cwd)", a.at)
			}
		}
		// Puppet 7: an array command contributes its first element only;
		// onlyif/unless each element (first of nested arrays); in each,
		// an absolute path at the start of any line (%r{^(/\S+)}), and
		// for command also a "quoted" path at a line start.
		for _, name := range []string{"command", "onlyif", "unless"} {
			a, ok := x.anyAttr(name)
			if !ok {
				continue
			}
			var lines []val
			switch {
			case a.v.k == vArr && name == "command":
				if len(a.v.arr) > 0 {
					lines = []val{a.v.arr[0]}
				}
			case a.v.k == vArr:
				for _, e := range a.v.arr {
					if e.k == vArr && len(e.arr) > 0 {
						e = e.arr[0]
					}
					lines = append(lines, e)
				}
			default:
				lines = []val{a.v}
			}
			for _, l := range lines {
				s, ok := l.text()
				if !ok || l.k != vStr {
					continue
				}
				for _, line := range strings.Split(s, "\n") {
					if strings.HasPrefix(line, "/") {
						add("File", strings.Fields(line)[0], "autorequire ("+name+")", a.at)
					}
					if name == "command" && strings.HasPrefix(line, "\"") {
						if j := strings.IndexByte(line[1:], '"'); j > 0 {
							add("File", line[1:1+j], "autorequire ("+name+")", a.at)
						}
					}
				}
			}
		}
		if a, ok := x.anyAttr("user"); ok {
			for _, s := range strs(a) {
				add("User", s, "autorequire (user)", a.at)
			}
		}
	case "Cron", "Ssh_authorized_key":
		if a, ok := x.anyAttr("user"); ok {
			for _, s := range strs(a) {
				add("User", s, "autorequire (user)", a.at)
			}
		}
	}
	return out
}

// cycles reports every dependency cycle as Puppet does, once per
// resource on it, with one related entry per edge.
func (a *analyzer) cycles(g *runGraph) {
	keys := make(map[*analysis.Node]string, len(g.nodes))
	sortKey := func(n *analysis.Node) string {
		if k, ok := keys[n]; ok {
			return k
		}
		k := n.Ref
		if n.Hidden {
			x := g.ownerOf(n)
			if x != nil && n == x.begin {
				k = "Whit[admissible_" + n.Ref + "]"
			} else {
				k = "Whit[completed_" + n.Ref + "]"
			}
		}
		keys[n] = k
		return k
	}
	var orderEdges []*analysis.Edge
	for _, e := range g.edges {
		if e.Kind.Orders() {
			orderEdges = append(orderEdges, e)
		}
	}
	cyc := g.feasibleCycles(orderEdges, func(p, q *analysis.Node) bool { return sortKey(p) < sortKey(q) })
	if len(cyc) == 0 {
		return
	}
	head := fmt.Sprintf("Found %d dependency cycle:", len(cyc))
	if len(cyc) > 1 {
		head = fmt.Sprintf("Found %d dependency cycles:", len(cyc))
	}
	var full *adjacency
	for _, cc := range cyc {
		adj := full
		if len(cc.World) != len(orderEdges) {
			adj = newAdjacency(cc.World)
		} else if full == nil {
			full = newAdjacency(orderEdges)
			adj = full
		}
		c := puppetPath(cc.Path, adj)
		ns := analysis.CycleNodes(c)
		names := make([]string, len(ns))
		for i, n := range ns {
			names[i] = n.Ref
		}
		msg := head + "\n(" + strings.Join(names, " => ") + ")"
		var rel []analysis.Related
		for _, e := range c {
			if e.At.IsZero() {
				continue
			}
			rel = append(rel, analysis.Related{At: e.At, Message: fmt.Sprintf("%s => %s (%s)", e.From.Ref, e.To.Ref, e.Reason)})
		}
		sev := analysis.Error
		if len(cc.When) > 0 {
			// Only some runs take the branches it needs: Puppet refuses
			// those runs only.
			sev = analysis.Warning
			msg += "\nwhen " + whenText(branches(cc.When))
		}
		seen := map[string]bool{}
		for _, n := range ns {
			at := n.Decl
			if at.IsZero() || seen[spanKey(at)] {
				continue
			}
			seen[spanKey(at)] = true
			g.r.diag(at, sev, "cycle", msg, rel...)
		}
		if sev == analysis.Error {
			g.hardCycle = true
		}
	}
}

// refreshFacts explains, on each resource, what refreshes it.
func (a *analyzer) refreshFacts(g *runGraph, live []*res) {
	into := map[*analysis.Node][]*analysis.Edge{}
	for _, e := range g.edges {
		if e.Kind == analysis.Refresh {
			into[e.To] = append(into[e.To], e)
		}
	}
	if len(into) == 0 {
		return
	}
	for _, x := range live {
		if x.containerish() || x.node == nil {
			continue
		}
		var lines []string
		for _, e := range into[x.node] {
			lines = append(lines, fmt.Sprintf("%s (%s at %s)", e.From.Ref, e.Reason, a.where(e.At)))
		}
		seen := map[*res]bool{}
		for c := x.container; c != nil && !seen[c]; c = c.container {
			seen[c] = true
			if c.begin == nil {
				continue
			}
			for _, e := range into[c.begin] {
				lines = append(lines, fmt.Sprintf("%s via %s (%s at %s)", e.From.Ref, c.display, e.Reason, a.where(e.At)))
			}
		}
		for _, l := range lines {
			dup := false
			for _, f := range x.node.Facts {
				if f.Label == "refreshed by" && f.Value == l {
					dup = true
				}
			}
			if !dup {
				x.node.Facts = append(x.node.Facts, analysis.Fact{Label: "refreshed by", Value: l})
			}
		}
	}
}

func (a *analyzer) where(at source.Span) string {
	return fmt.Sprintf("%s:%d", a.displayPath(at.URI), a.line(at))
}

// adjacency lists a run's ordering edges by their ends.
type adjacency struct {
	out, in map[*analysis.Node][]*analysis.Edge
}

func newAdjacency(edges []*analysis.Edge) *adjacency {
	j := &adjacency{out: map[*analysis.Node][]*analysis.Edge{}, in: map[*analysis.Node][]*analysis.Edge{}}
	for _, e := range edges {
		j.out[e.From] = append(j.out[e.From], e)
		j.in[e.To] = append(j.in[e.To], e)
	}
	return j
}

// puppetPath re-walks a cycle the way Puppet prints it (paths_in_cycle):
// a breadth-first search from the component's first vertex that stops at
// the first vertex seen twice on a path, which need not be the start.
// Paths are kept as a tree of frames (each knows the one it extends), so
// a frame costs its own size, not a copy of its path.
func puppetPath(c []*analysis.Edge, j *adjacency) []*analysis.Edge {
	if len(c) == 0 {
		return c
	}
	start := c[0].From
	reach := func(adj map[*analysis.Node][]*analysis.Edge, fwd bool) map[*analysis.Node]bool {
		seen := map[*analysis.Node]bool{start: true}
		q := []*analysis.Node{start}
		for len(q) > 0 {
			v := q[0]
			q = q[1:]
			for _, e := range adj[v] {
				w := e.To
				if !fwd {
					w = e.From
				}
				if !seen[w] {
					seen[w] = true
					q = append(q, w)
				}
			}
		}
		return seen
	}
	f, b := reach(j.out, true), reach(j.in, false)
	type frame struct {
		v      *analysis.Node
		parent int32 // the frame this one extends, -1 for the start
		e      *analysis.Edge
	}
	q := []frame{{v: start, parent: -1}}
	for head, steps := 0, 0; head < len(q) && steps < 100000; head, steps = head+1, steps+1 {
		fr := q[head]
		// Is the vertex already on the path that led here?
		for p := fr.parent; p >= 0; p = q[p].parent {
			if q[p].v == fr.v {
				// The path starts at the start vertex and ends at the
				// repeated one, as Puppet's does.
				var path []*analysis.Edge
				for k := int32(head); q[k].parent >= 0; k = q[k].parent {
					path = append(path, q[k].e)
				}
				slices.Reverse(path)
				return path
			}
		}
		for _, e := range j.out[fr.v] {
			if f[e.To] && b[e.To] {
				q = append(q, frame{v: e.To, parent: int32(head), e: e})
			}
		}
	}
	return c
}

// settleMissing decides, once every run of the server is known, how bad
// each missing relationship target is. A class or define analysed alone
// refers to things its real callers declare: a target declared by any
// run of the workspace is fine there. A target that nothing in the
// workspace declares is an error, unless a module absent from the
// workspace could declare it (a hint then).
func (a *analyzer) settleMissing(runs []analysis.Run) {
	for _, r := range a.allRuns {
		for _, m := range r.missing {
			rf := m.ref
			key := refString(rf.typ, canonTitle(rf.typ, rf.title))
			cls := rf.typ == "Class" && a.classes[canonTitle("Class", rf.title)] != nil
			_, declared := a.declaredKeys[key]
			declared = declared || cls
			if !declared {
				for _, p := range a.declaredPats {
					if globMatch(p, key) {
						declared = true
						break
					}
				}
			}
			d := m.d
			if debugRuns {
				d.Message += " [run " + r.name + "]"
			}
			switch {
			case declared && r.synthetic:
				continue
			case a.partial && r.synthetic:
				// What callers declare is only known once every run is:
				// the complete analysis that follows decides.
				continue
			case rf.typ == "Class" && !cls && !a.moduleKnown(canonTitle("Class", rf.title)):
				d.Severity = analysis.Hint
				d.Message += " (its module is not in the workspace)"
			case r.absent:
				// Something this run declares we cannot see into (a class of
				// an absent module, a site function like role()).
				d.Severity = analysis.Hint
				d.Message += " (it may be declared by code that is not in the workspace)"
			}
			if d.Severity == analysis.Error && r.out < len(runs) {
				runs[r.out].Refused = true
			}
			a.addDiag(d)
		}
	}
}

// debugRuns (ORDERING_LSP_DEBUG_RUNS=1) names the run of each missing
// target, to understand diagnostics on big workspaces.
var debugRuns = os.Getenv("ORDERING_LSP_DEBUG_RUNS") != ""

// toposort is analysis.Toposort (Kahn, lowest priority first) on the
// run's positions: no maps keyed by node on the hot path.
func (g *runGraph) toposort() (order, stuck []*analysis.Node) {
	n := len(g.nodes)
	indeg := make([]int32, n)
	head := make([]int32, n)
	for i := range head {
		head[i] = -1
	}
	next := make([]int32, 0, len(g.edges))
	to := make([]int32, 0, len(g.edges))
	for _, e := range g.edges {
		if !e.Kind.Orders() || e.From == e.To {
			continue
		}
		f, t := g.local(e.From), g.local(e.To)
		if f < 0 || t < 0 {
			continue
		}
		to = append(to, t)
		next = append(next, head[f])
		head[f] = int32(len(to) - 1)
		indeg[t]++
	}
	h := idxHeap{g: g}
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			h.items = append(h.items, int32(i))
		}
	}
	h.init()
	order = make([]*analysis.Node, 0, n)
	done := make([]bool, n)
	for len(h.items) > 0 {
		v := h.pop()
		done[v] = true
		order = append(order, g.nodes[v])
		for k := head[v]; k >= 0; k = next[k] {
			t := to[k]
			indeg[t]--
			if indeg[t] == 0 {
				h.push(t)
			}
		}
	}
	if len(order) < n {
		var idx []int32
		for i := range g.nodes {
			if !done[i] {
				idx = append(idx, int32(i))
			}
		}
		sort.SliceStable(idx, func(i, j int) bool { return g.less(idx[i], idx[j]) })
		for _, i := range idx {
			stuck = append(stuck, g.nodes[i])
		}
	}
	return order, stuck
}

// idxHeap is a binary min-heap of positions by g.less (container/heap
// boxes every push).
type idxHeap struct {
	items []int32
	g     *runGraph
}

func (h *idxHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *idxHeap) push(x int32) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.g.less(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *idxHeap) pop() int32 {
	x := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return x
}

func (h *idxHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h.g.less(h.items[r], h.items[l]) {
			j = r
		}
		if !h.g.less(h.items[j], h.items[i]) {
			return
		}
		h.items[i], h.items[j] = h.items[j], h.items[i]
		i = j
	}
}

func (g *runGraph) selfLoop() bool {
	for _, e := range g.edges {
		if e.From == e.To && e.Kind.Orders() {
			return true
		}
	}
	return false
}

// localEdge orders the run without entering the shared graph.
func (a *analyzer) localEdge(g *runGraph, from, to *analysis.Node) *analysis.Edge {
	e := a.newEdge(analysis.Edge{From: from, To: to, Kind: analysis.Order, Reason: "contains"})
	g.edges = append(g.edges, e)
	return e
}

// when records the branches an edge needs: those under which the
// resources xs exist and those of the place c that made it (a chain, or
// the declaration whose attributes made it: with a resource declared in
// two exclusive branches, only the first one's attributes are kept). An
// edge made twice needs only what both makings need.
// whenDecl: an edge x's attributes make to t.
func (g *runGraph) whenDecl(e *analysis.Edge, x, t *res) {
	if x.kind == "class" {
		g.when(e, []*res{x, t}, nil)
		return
	}
	g.when(e, []*res{t}, x.cond)
}

func (g *runGraph) when(e *analysis.Edge, xs []*res, c *cond) {
	if e == nil || g.r.points == 0 {
		return
	}
	var bs []*branch
	for _, x := range xs {
		bs = addBranches(bs, g.conds.res(x))
	}
	bs = addBranches(bs, g.conds.of(c))
	if g.econd == nil {
		g.econd = map[*analysis.Edge][]*branch{}
	}
	if old, ok := g.econd[e]; ok {
		g.econd[e] = common(old, bs)
		return
	}
	g.econd[e] = bs
}

// generatedFile: puppetlabs-concat's concat_file type generates a File
// resource for its path when the catalog is applied; Puppet evaluates it
// right after the concat_file. We show it there.
func (a *analyzer) generatedFile(g *runGraph, x *res, h string) {
	p := x.title
	if at, ok := x.anyAttr("path"); ok {
		if s, k := at.v.text(); k {
			p = s
		}
	}
	if x.pat || !strings.HasPrefix(p, "/") || g.r.find("File", p) != nil {
		return
	}
	ref := refString("File", p)
	n := a.node(nodeKey{'G', ref, x.decl, ""}, func() *analysis.Node {
		return &analysis.Node{Kind: "resource", Ref: ref, Decl: x.decl, Parent: x.parentSym,
			Facts: []analysis.Fact{{Label: "generated", Value: "by " + x.display + " when the catalog is applied"}}}
	})
	g.add(n, pkey{h, x.prio, 2}, x)
	a.edge(g, x.node, n, analysis.Order, "generated", x.decl)
	g.generated = append(g.generated, [2]*analysis.Node{x.node, n})
}

// redirectGenerated: what waits for a generating resource also waits for
// what it generated (Puppet redirects the generator's edges to a
// "completed" sentinel that the generated resources precede).
func (g *runGraph) redirectGenerated(a *analyzer) {
	for _, p := range g.generated {
		var to []*analysis.Node
		for _, e := range g.edges[:g.outEnd] {
			if e.From == p[0] && e.To != p[1] && e.Kind.Orders() {
				to = append(to, e.To)
			}
		}
		for _, t := range to {
			a.localEdge(g, p[1], t)
		}
	}
}
