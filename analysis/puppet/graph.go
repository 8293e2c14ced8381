package puppet

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// ---- the relationship graph of one run ----

// pkey is a node's place in Puppet's order: catalog position, then
// anchor before resource before anchor. The title hash the old
// orderings put first is kept apart (runGraph.hashes), only for them: a
// string beside every key doubled the keys (the 100k check: 180k of 32
// bytes against 16).
type pkey struct {
	p   int
	sub int8
}

type runGraph struct {
	r     *run
	nodes []*analysis.Node
	prio  []pkey // parallel to nodes
	// hashes: with a title-hash or random ordering, each node's hash,
	// parallel to nodes, ordered before prio (hashed); else nil.
	hashes []string
	hashed bool
	owner  []*res  // parallel to nodes
	loc    []int32 // node.Index -> 1 + its position in nodes (0: not in the run)
	edges  []*analysis.Edge
	// outEnd: len(edges) once containment was complete (redirectGenerated
	// redirects the edges that existed then).
	outEnd    int
	explicit  map[[2]*analysis.Node]bool
	hardCycle bool
	// elog: the branches each making of an edge needs, when the run
	// evaluated undecided conditionals (cond.go, edgeConds).
	elog      []edgeWhen
	conds     condSets
	extra     []*analysis.Node // visible nodes outside the order (define instances)
	generated [][2]*analysis.Node
	// locals: the edges only the run's order reads (localEdge), which
	// the analysis's graph and so the snapshot's edges do not hold
	locals    []*analysis.Edge
	condFacts map[branchSet][]analysis.Fact // condFact's answers
	// eitherFacts: condFact's answers for the resources of a class whose
	// declaring places share no branch (condSets.eitherOf), by class
	eitherFacts map[*res][]analysis.Fact
	sc          *runScratch
}

// condFact is the hover fact of x, declared under branches nobody can
// decide. The resources written under the same few branches share it
// (wording the branches and looking the words up under the analysis's
// lock for each was a twentieth of building a role run of
// operations-puppet).
func (g *runGraph) condFact(a *analyzer, x *res) []analysis.Fact {
	bs := g.conds.res(x)
	if len(bs) > len(branchSet{}) {
		return a.conditionFact(whenText(bs))
	}
	var k branchSet
	copy(k[:], bs)
	if len(bs) == 0 {
		if fs := g.eitherFact(a, x); fs != nil {
			return fs
		}
	}
	if fs, ok := g.condFacts[k]; ok {
		return fs
	}
	what := "a condition"
	if len(bs) > 0 {
		what = whenText(bs)
	}
	fs := a.conditionFact(what)
	if g.condFacts == nil {
		g.condFacts = map[branchSet][]analysis.Fact{}
	}
	g.condFacts[k] = fs
	return fs
}

// eitherFact is condFact's answer when the places that declare x's class
// share no branch (condSets.eitherOf): each place's condition; nil when
// one is reached unconditionally. A resource's answer is its class's,
// kept by class (a class's own is asked once, for its entry in the
// patch table: patch.go).
func (g *runGraph) eitherFact(a *analyzer, x *res) []analysis.Fact {
	if x.kind == "class" {
		if alt := g.conds.eitherOf(x); alt != "" {
			return a.conditionFact(alt)
		}
		return nil
	}
	root := x.cond.rootClass()
	fs, known := g.eitherFacts[root]
	if !known {
		if alt := g.conds.eitherOf(x); alt != "" {
			fs = a.conditionFact(alt)
		}
		if g.eitherFacts == nil {
			g.eitherFacts = map[*res][]analysis.Fact{}
		}
		g.eitherFacts[root] = fs
	}
	return fs
}

// branchSet: a few branches, as a map key.
type branchSet [4]*branch

// add puts a node into the run's order with its priority and owner.
func (g *runGraph) add(n *analysis.Node, h string, k pkey, x *res) {
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
		if g.hashed {
			g.hashes[i] = h
		}
	}
	g.nodes = append(g.nodes, n)
	g.prio = append(g.prio, k)
	if g.hashed {
		g.hashes = append(g.hashes, h)
	}
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
	if g.hashed && g.hashes[i] != g.hashes[j] {
		return g.hashes[i] < g.hashes[j]
	}
	a, b := &g.prio[i], &g.prio[j]
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

// node adds the node mk makes for key to the run being built. A run is
// built on an analyzer of its own (a fork) or alone (one manifest), so
// every key is new here: merge shares nodes between runs (cache.go).
func (a *analyzer) node(key nodeKey, mk func() *analysis.Node) *analysis.Node {
	n := mk()
	a.addNode(key, n)
	return n
}

// addNode adds n to the graph and to the run's nodes in creation order
// (firstKeys: what the run's snapshot keeps).
func (a *analyzer) addNode(key nodeKey, n *analysis.Node) {
	a.graph.Add(n)
	if !a.listsUnread() {
		a.firstKeys = append(a.firstKeys, snapNode{n, key.kind})
	}
}

// listsUnread: nobody reads the run's nodes in creation order nor the
// graph's list of edges, which only a merge of nodes and edges takes: a
// diagnostics-only merge takes the run's problems (mergeDiagnostics),
// and the snapshot is not kept (Once). The run's order and cycles are
// found from runGraph's lists. The 100k check: 330k edges and 140k
// nodes listed a second time, 10 MB allocated.
func (a *analyzer) listsUnread() bool { return a.diagsOnly() && !a.strict }

// nodeFor returns a new zero node for key, already in the graph, for the
// caller to fill in (keeping its Index).
func (a *analyzer) nodeFor(key nodeKey) *analysis.Node {
	if len(a.nodeSlab) == cap(a.nodeSlab) {
		a.nodeSlab = a.newNodeSlab()
	}
	a.nodeSlab = append(a.nodeSlab, analysis.Node{})
	n := &a.nodeSlab[len(a.nodeSlab)-1]
	a.addNode(key, n)
	return n
}

// newEdge allocates edges in slabs: a 10k-resource catalog has tens of
// thousands of them.
func (a *analyzer) newEdge(e analysis.Edge) *analysis.Edge {
	if len(a.edgeSlab) == cap(a.edgeSlab) {
		a.edgeSlab = a.newEdgeSlab()
	}
	a.edgeSlab = append(a.edgeSlab, e)
	return &a.edgeSlab[len(a.edgeSlab)-1]
}

// edge adds an edge to the run and its graph (merge shares edges
// between runs).
func (a *analyzer) edge(g *runGraph, from, to *analysis.Node, kind analysis.EdgeKind, reason string, at source.Span) *analysis.Edge {
	e := a.newEdge(analysis.Edge{From: from, To: to, Kind: kind, Reason: reason, At: at})
	if !a.listsUnread() {
		a.graph.Connect(e)
	}
	if g != nil {
		g.edges = append(g.edges, e)
	}
	return e
}

func (x *res) containerish() bool {
	return x.kind == "class" || x.kind == "define" || x.kind == "stage" || x.kind == "main" || x.kind == "node" || x.typ == "Stage"
}

// defineInstanceFacts is the hover line of every defined type instance,
// one slice for all (len = cap: a node that adds a fact reallocates).
var defineInstanceFacts = []analysis.Fact{{Label: "defined type instance", Value: "its body is evaluated after the main code; it is ordered as a container (before/after everything it declares)"}}

func (a *analyzer) buildRun(r *run) analysis.Run {
	g := &runGraph{r: r, explicit: map[[2]*analysis.Node]bool{}}
	r.building = true
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
	sc := a.scratch
	if sc == nil {
		sc = &runScratch{}
	}
	g.sc = sc
	live := reuse(sc.live, len(r.resources))
	var runDeclared, runPats []string
	if a.strict {
		// (server runs are built on forks and merged: see merge)
		a.allRuns = append(a.allRuns, r)
	} else {
		runDeclared = make([]string, 0, len(r.resources))
	}
	est := len(r.resources) + len(r.resources)/2 + 8
	a.graph.Nodes = slices.Grow(a.graph.Nodes, est)
	// (grown by doubling from 64 in add: 2.6 MB allocated for the 100k
	// check's 0.7 MB)
	g.loc = make([]int32, len(a.graph.Nodes)+est)
	if !a.listsUnread() {
		a.firstKeys = slices.Grow(a.firstKeys, est)
		a.graph.Edges = slices.Grow(a.graph.Edges, 2*len(r.resources))
	}
	g.nodes = reuse(sc.nodes, est)
	g.prio = reuse(sc.prio, cap(g.nodes))
	if g.hashed = a.ordering == "title-hash" || a.ordering == "random"; g.hashed {
		g.hashes = make([]string, 0, cap(g.nodes))
	}
	g.owner = reuse(sc.owner, cap(g.nodes))
	g.edges = reuse(sc.edges, 3*len(r.resources)+8)
	if r.points > 0 {
		// nearly every edge is logged (when): growing the log by doubling
		// allocated twice what it holds
		g.elog = reuse(sc.elog, cap(g.edges))
	}
	for _, x := range r.resources {
		if !x.inCatalog() {
			continue
		}
		live = append(live, x)
		if !a.strict {
			if x.pat {
				runPats = append(runPats, x.typ+"["+patTitle(x.typ, x.title)+"]")
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
			x.begin = a.nodeFor(nodeKey{'A', x.display, x.decl, r.name})
			*x.begin = analysis.Node{Kind: "anchor", Ref: x.display, Decl: x.decl, Parent: parent, Hidden: true, Index: x.begin.Index}
			x.end = a.nodeFor(nodeKey{'Z', x.display, x.decl, r.name})
			*x.end = analysis.Node{Kind: "anchor", Ref: x.display, Decl: x.decl, Parent: parent, Hidden: true, Index: x.end.Index}
			g.add(x.begin, h, pkey{x.prio, 0}, x)
			g.add(x.end, h, pkey{x.prio, 1}, x)
			switch {
			case x.class != nil:
				x.node = x.class.node
			case x.kind == "define" || (x.kind == "stage" && !x.decl.IsZero()):
				x.node = a.nodeFor(nodeKey{'R', x.display, x.decl, ""})
				*x.node = analysis.Node{Kind: "resource", Ref: x.display, Decl: x.decl, Full: x.full.Span(), Parent: x.parentSym, Index: x.node.Index}
				if x.kind == "define" {
					x.node.Facts = defineInstanceFacts
				}
				g.extra = append(g.extra, x.node)
			}
			continue
		}
		n := a.nodeFor(nodeKey{'R', x.display, x.decl, ""})
		x.node = n
		*n = analysis.Node{Kind: "resource", Ref: x.display, Decl: x.decl, Full: x.full.Span(), Parent: x.parentSym, Index: n.Index}
		if x.spec && !a.hoverUnread() {
			n.Facts = g.condFact(a, x)
		}
		if x.pat {
			n.Facts = append(n.Facts, analysis.Fact{Label: "title", Value: "built from values we do not know; shown as a pattern (* = unknown part)"})
		}
		g.add(x.node, h, pkey{x.prio, 0}, x)
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
					// Puppet's error at the declaration; settled as a missing
					// target (a module not in the workspace may declare
					// the stage: stdlib::stages)
					at := x.site
					if at.IsZero() {
						at = x.decl
					}
					r.missingAs(at, &ref{typ: "Stage", title: x.stage, at: at}, "unknown-stage", fmt.Sprintf("Could not find stage %s specified by %s", x.stage, x.display), nil)
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
		parents = append(parents, x.extraContainers()...)
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
	var rbuf []attr
	for _, x := range live {
		if !hasMetaparam(x.attrs) {
			continue
		}
		for _, mp := range metaNames {
			rbuf = relValues(rbuf, x.attrs, mp)
			for _, av := range rbuf {
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
									msg := fmt.Sprintf("Could not find resource '%s' in parameter '%s'", refString(v.ref.typ, displayTitle(v.ref)), mp)
									if p, provider := r.namedPackage(v.ref); p != nil {
										if !provider {
											// found while compiling by its key, not when applying
											msg = fmt.Sprintf("Could not find dependency %s for %s", refString(v.ref.typ, displayTitle(v.ref)), x.display)
										}
										msg += fmt.Sprintf(" (%s is named %s, but a package is found by its title only)", p.display, v.ref.title)
									}
									r.missingWhen(v.at, v.ref, msg, when)
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
		// Puppet relates the two sides pair by pair: beside a collector
		// that collects nothing, a reference is never looked up.
		lNone, rNone := collectsNothing(rel.left), collectsNothing(rel.right)
		left, lQuiet := r.operands(g, rel.left, rel, true, rNone)
		right, rQuiet := r.operands(g, rel.right, rel, false, lNone)
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
		if r.probing && (rel.left.k == vCollect || rel.right.k == vCollect || rel.left.k == vArr || rel.right.k == vArr) {
			r.noteChain(rel, kind, reason, left, right, lQuiet || rQuiet)
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
	order, stuck := g.toposort(!a.listsUnread())
	run := analysis.Run{Name: r.name, Entry: r.entry, Alone: r.synthetic}
	steps := [2][]*analysis.Node{order, stuck}
	if a.diagsOnly() && !a.strict {
		steps = [2][]*analysis.Node{} // merged without its steps (mergeDiagnostics)
	}
	visible := 0
	for _, list := range steps {
		for _, n := range list {
			if !n.Hidden {
				visible++
			}
		}
	}
	run.Steps = make([]analysis.Step, 0, visible)
	for _, list := range steps {
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
		a.cycles(g, stuck)
	}
	if !a.hoverUnread() {
		a.refreshFacts(g, live)
	}
	// Links.
	var linkSrcs []snapLinkSrc
	if !a.strict {
		linkSrcs = reuse(sc.links, len(r.links)) // (snapshot keeps none of it)
	}
	for _, l := range r.links { // none when only diagnostics are asked (run.link)
		var targets []*analysis.Node
		switch {
		case l.class != "":
			if ci := a.lookupClass(l.class); ci != nil {
				targets = append(targets, ci.node)
			}
		case l.def != "":
			if d := a.lookupDefine(l.def); d != nil {
				targets = append(targets, d.node)
			}
		default:
			for _, rf := range l.refs {
				if rf.typ == "Class" {
					name := canonTitle("Class", rf.title)
					ci := a.lookupClass(name)
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
	a.keepOrder(g, order)
	sc.keep(g, live, linkSrcs)
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
	a.linkTargets(&a.linkSeen, i, targets)
}

// linkTargets adds targets to link i of linkArr, each once, in order
// (seenBy: the targets of links with many, by link). Nearly every run
// that links from a place links to the same node: a short list is
// searched, a map is made only for a link with many targets.
func (a *analyzer) linkTargets(seenBy *map[int32]map[*analysis.Node]bool, i int32, targets []*analysis.Node) {
	l := &a.linkArr[i]
	if len(targets) == 0 {
		return
	}
	if len(l.Nodes) == 0 && len(targets) == 1 {
		l.Nodes = []*analysis.Node{targets[0]}
		return
	}
	seen := (*seenBy)[i]
	if seen == nil && len(l.Nodes)+len(targets) > maxLinkScan {
		seen = make(map[*analysis.Node]bool, len(l.Nodes)+len(targets))
		for _, x := range l.Nodes {
			seen[x] = true
		}
		if *seenBy == nil {
			*seenBy = map[int32]map[*analysis.Node]bool{}
		}
		(*seenBy)[i] = seen
	}
	for _, t := range targets {
		if seen != nil {
			if seen[t] {
				continue
			}
			seen[t] = true
		} else if slices.Contains(l.Nodes, t) {
			continue
		}
		l.Nodes = append(l.Nodes, t)
	}
}

// maxLinkScan: a link with more targets than this is searched by map.
const maxLinkScan = 16

// relValues applies Puppet's attribute precedence to one metaparameter:
// written values, replaced by `=>` overrides, extended by `+>`; defaults
// only when nothing else set it.
//
// out is reused (its contents are replaced): a catalog's metaparameters
// asked for one allocation each.
func relValues(out, attrs []attr, name string) []attr {
	out = out[:0]
	set := false
	for _, a := range attrs {
		if a.name != name {
			continue
		}
		switch {
		case a.plus:
			out = append(out, a)
			set = true
		case a.from == byDefault:
			if !set {
				out = append(out, a)
				set = true
			}
		default:
			out = append(out[:0], a)
			set = true
		}
	}
	return out
}

var refText = lazyre.New(`^([A-Za-z][\w:]*)\[(.*)\]$`)

// refreshFacts explains, on each resource, what refreshes it. The lines
// a container's refreshes give are worded once per container: every
// resource inside it repeats them.
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
	// A container's lines are written out once (every resource it holds
	// shows them, and writing a template's marks out for each was more
	// than half of this).
	via := map[*res][]analysis.Fact{}
	viaFacts := func(c *res) []analysis.Fact {
		if l, ok := via[c]; ok {
			return l
		}
		var l []analysis.Fact
		for _, e := range into[c.begin] {
			t := fmt.Sprintf("%s via %s (%s at %s)", e.From.Ref, c.display, e.Reason, a.where(e.At))
			l = append(l, analysis.Fact{Label: "refreshed by", Value: a.lines(t), Template: t})
		}
		via[c] = l
		return l
	}
	var seenBuf [16]*res
	var facts []analysis.Fact
	for _, x := range live {
		if x.containerish() || x.node == nil {
			continue
		}
		facts = facts[:0]
		for _, e := range into[x.node] {
			facts = append(facts, a.refreshedBy(e))
		}
		seen := seenBuf[:0]
		for c := x.container; c != nil && !slices.Contains(seen, c); c = c.container {
			seen = append(seen, c)
			if c.begin == nil {
				continue
			}
			facts = append(facts, viaFacts(c)...)
		}
		for _, nf := range facts { // templates: where's lines are marks
			dup := false
			for _, f := range x.node.Facts {
				if f.Label == "refreshed by" && f.Template == nf.Template {
					dup = true
				}
			}
			if !dup {
				x.node.Facts = append(x.node.Facts, nf)
			}
		}
	}
}

// refreshedBy is the hover line a refresh edge e gives what it refreshes
// (patches write the same: patchmeta.go).
func (a *analyzer) refreshedBy(e *analysis.Edge) analysis.Fact {
	t := fmt.Sprintf("%s (%s at %s)", e.From.Ref, e.Reason, a.where(e.At))
	return analysis.Fact{Label: "refreshed by", Value: a.lines(t), Template: t}
}

// localEdge orders the run without entering the shared graph.
func (a *analyzer) localEdge(g *runGraph, from, to *analysis.Node) *analysis.Edge {
	e := a.newEdge(analysis.Edge{From: from, To: to, Kind: analysis.Order, Reason: "contains"})
	g.edges = append(g.edges, e)
	g.locals = append(g.locals, e)
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
		bs = unionBranches(bs, g.conds.res(x))
	}
	bs = unionBranches(bs, g.conds.of(c))
	g.elog = append(g.elog, edgeWhen{e, bs})
}

// edgeWhen is one call of when: the branches one place that makes e
// needs.
type edgeWhen struct {
	e  *analysis.Edge
	bs []*branch
}

// edgeConds is the branches each of edges (a cycle's world) needs (nil:
// none), built from the log of when's calls: only a run with a cycle
// asks, while every edge of a run with undecided conditionals is logged
// (a map written for each of them was 5% of what a control repository's
// analysis allocated; one for every edge of a run with a cycle, another
// 5%).
func (g *runGraph) edgeConds(edges []*analysis.Edge) map[*analysis.Edge][]*branch {
	if len(g.elog) == 0 {
		return nil
	}
	want := make(map[*analysis.Edge]bool, len(edges))
	for _, e := range edges {
		want[e] = true
	}
	econd := make(map[*analysis.Edge][]*branch, len(edges))
	for _, w := range g.elog {
		if !want[w.e] {
			continue
		}
		if old, ok := econd[w.e]; ok {
			econd[w.e] = common(old, w.bs)
			continue
		}
		econd[w.e] = w.bs
	}
	return econd
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
	if x.pat || !strings.HasPrefix(p, "/") {
		return
	}
	if g.r.find("File", p) != nil {
		if g.r.probing { // (taken out, it would be generated: kept as if not found)
			g.r.probes = append(g.r.probes, uint32(maphash.Bytes(keySeed, g.r.kbuf)))
		}
		return
	}
	ref := refString("File", p)
	n := a.node(nodeKey{'G', ref, x.decl, ""}, func() *analysis.Node {
		return &analysis.Node{Kind: "resource", Ref: ref, Decl: x.decl, Parent: x.parentSym,
			Facts: []analysis.Fact{{Label: "generated", Value: "by " + x.display + " when the catalog is applied"}}}
	})
	g.add(n, h, pkey{x.prio, 2}, x)
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
