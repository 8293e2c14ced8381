package puppet

import (
	"hash/maphash"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

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

// runSnap is a finished run, built on its own (see fork): its nodes in
// the order it made them, its edges, steps, diagnostics and links. Every
// server run is built this way and merged into the analysis in run order
// (merge), so a run restored from the previous analysis and a run built
// afresh reach the result by the same path. A snapshot is never modified
// after it is made: the facts each node had when its run finished are
// kept apart from the node (later runs sharing the node add theirs to the
// node, not to the snapshot).
type runSnap struct {
	deps            map[depKey]string
	nodes           []snapNode       // the run's own nodes, in creation order
	facts           []nodeFacts      // the facts of those that have some
	edges           []*analysis.Edge // between nodes of the run and definition nodes, in creation order
	run             analysis.Run     // Steps point at nodes
	diags           []analysis.Diagnostic
	missing         []missingDiag
	links           snapLinks
	defs            []*analysis.Node // definition nodes links point at
	declared        []string
	aliases         []uint64 // hashes of the keys the run's resources answer to besides their own (addAliases), sorted
	probes          []uint32 // hashes (probeHash) of the keys it looked for (run.lookup2) and of its resources not in the catalog (virtual, exported), sorted
	patRefs         []string // its references with titles we cannot read (run.patRefs)
	cols            []colSnap
	patterns        []string
	absent          bool
	absentElse      bool // (absent for another reason than a class's hint: patchincl.go)
	unknownIncludes bool
	synthetic       bool
	ids             *snapIDs // numbers of its nodes, edges, links (mergeids.go); nil: none yet
	order           *snapOrder
	// own: its edges, run.Steps and declared were made for it alone (a
	// patch's, patchSnap) and nothing reads them after its merge, which
	// writes its copies over them (on operations-puppet each edit of
	// profile::base merged 300 such runs into new arrays: 30 MB)
	own bool
}

// depKey names an input of a run: kind 'f' file, 'F' the list of files
// of a main manifest folder, 'c' class (the file defining it), 'k' where a
// class linked to is defined, 'd' define, 'm' module probe, 't' ruby type
// probe, 'p' data file.
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
	v, ok := a.cur.deps[k]
	if !ok {
		v = value()
		a.cur.deps[k] = v
	}
	if a.cur.rec != nil {
		a.cur.recDep(k, v)
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
		if ci := a.lookupClass(name); ci != nil {
			return astID(ci.file)
		}
		a.autoload(name)
		if ci := a.classes[name]; ci != nil {
			return astID(ci.file)
		}
		return ""
	case 'd':
		if d := a.lookupDefine(name); d != nil {
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
	case 'F':
		return a.envList()
	case 'k':
		return classPlace(a.lookupClass(name))
	case 'g':
		return strings.Join(a.classFamily1(name), ",")
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
	if a.factsFile != "" {
		// the file the node's facts came from (one of a folder's)
		k += "\x00facts=" + a.factsFile + "=" + a.contentID(a.factsFile)
	}
	if a.encFile != "" {
		k += "\x00enc=" + a.contentID(a.encFile)
	}
	return k + "\x00roots=" + strings.Join(a.ws.Roots(), ":") + "\x00world=" + a.world.key
}

// cached returns the snapshot of a run whose inputs did not change.
func (a *analyzer) cached(name string) *runSnap {
	if a.strict || a.ordering == "random" || a.prevCache == nil {
		return nil
	}
	s := a.prevSnap(name)
	if s == nil {
		return nil
	}
	for k, v := range s.deps {
		if a.depValue(k) != v || a.wantLoad {
			return nil
		}
	}
	return s
}

// prevSnap is the previous analysis's snapshot of a run, if it is still
// there.
func (a *analyzer) prevSnap(name string) *runSnap {
	m := a.main
	m.prevMu.Lock()
	defer m.prevMu.Unlock()
	return m.prevCache[name]
}

// snapshot records a run freshly built on a forked analyzer: everything
// in the fork's graph is the run's own.
func (a *analyzer) snapshot(r *run, run analysis.Run, links []snapLinkSrc, declared, patterns []string) {
	if a.strict || a.canceled() {
		return // a canceled run may be partial: never reuse it
	}
	s := &runSnap{deps: r.deps, run: run, diags: r.diags, missing: r.missing, absent: r.absent, absentElse: r.absentElse, unknownIncludes: r.unknownIncludes, synthetic: r.synthetic,
		declared: declared, patterns: patterns, edges: a.graph.Edges, nodes: a.firstKeys}
	if len(r.aliases) > 0 {
		// (hashes: a patch only asks whether a key may be one, and a
		// control repository's runs hold a hundred thousand aliases)
		s.aliases = make([]uint64, 0, len(r.aliases))
		for k := range r.aliases {
			s.aliases = append(s.aliases, keyHash(k))
		}
		slices.Sort(s.aliases)
	}
	for _, x := range r.resources {
		if !x.inCatalog() && !x.pat && r.probing {
			// (virtual or exported: a resource of its key declared
			// later is a duplicate)
			r.probes = append(r.probes, probeHash(x.key))
		}
	}
	if len(r.probes) > 0 {
		// (a copy: the array appends grew holds every lookup, repeats too)
		slices.Sort(r.probes)
		s.probes = slices.Clone(slices.Compact(r.probes))
		r.probes = nil
	}
	s.patRefs = r.patRefs
	if r.probing {
		s.cols = r.colSnaps()
	}
	nf := 0
	for _, sn := range s.nodes {
		if len(sn.n.Facts) > 0 {
			nf++
		}
	}
	s.facts = make([]nodeFacts, 0, nf) // (grown by appending: 32 MB an edit in profile::base)
	for i, sn := range s.nodes {
		if len(sn.n.Facts) > 0 {
			s.facts = append(s.facts, nodeFacts{int32(i), sn.n.Facts})
		}
	}
	// Links by node index: the fork's graph holds exactly the run's nodes,
	// in the order of s.nodes; any other target is a definition node.
	l := &s.links
	l.at = make([]source.Span, len(links))
	l.start = make([]int32, len(links)+1)
	var defAt map[*analysis.Node]int // s.defs by node, once it is long
	defIndex := func(t *analysis.Node) int {
		if defAt == nil && len(s.defs) > 16 {
			defAt = make(map[*analysis.Node]int, 2*len(s.defs))
			for j, d := range s.defs {
				defAt[d] = j
			}
		}
		if defAt != nil {
			if j, ok := defAt[t]; ok {
				return j
			}
			return -1
		}
		return slices.Index(s.defs, t)
	}
	for i, src := range links {
		l.at[i] = src.at
		for _, t := range src.targets {
			if t.Index < len(a.graph.Nodes) && a.graph.Nodes[t.Index] == t {
				l.tgt = append(l.tgt, int32(t.Index))
				continue
			}
			j := defIndex(t)
			if j < 0 {
				j = len(s.defs)
				s.defs = append(s.defs, t)
				if defAt != nil {
					defAt[t] = j
				}
			}
			l.tgt = append(l.tgt, int32(-1-j))
		}
		l.start[i+1] = int32(len(l.tgt))
	}
	a.lastSnap = s
}

// snapLinks are a run's links with their targets as indexes into the
// run's nodes (or, negative, into its definition nodes): unlike pointers,
// they stay true in every later analysis, so the snapshots of all
// analyses share them (a control repository's runs make a million).
type snapLinks struct {
	at    []source.Span
	start []int32 // the targets of link i: tgt[start[i]:start[i+1]]
	tgt   []int32 // >= 0: nodes[t]; < 0: defs[-1-t]
}

// add appends a link at at to node t (the arrays copied first: a
// patched snapshot shares them with the one it was made from).
func (l *snapLinks) add(at source.Span, t int32) {
	if len(l.start) == 0 {
		l.start = []int32{0}
	}
	l.at = append(slices.Clip(l.at), at)
	l.tgt = append(slices.Clip(l.tgt), t)
	l.start = append(slices.Clip(l.start), int32(len(l.tgt)))
}

// addAll appends a link at at to the nodes ts (none: a link without
// target), as add does.
func (l *snapLinks) addAll(at source.Span, ts []int32) {
	if len(l.start) == 0 {
		l.start = []int32{0}
	}
	l.at = append(slices.Clip(l.at), at)
	l.tgt = append(slices.Clip(l.tgt), ts...)
	l.start = append(slices.Clip(l.start), int32(len(l.tgt)))
}

// snapNode is a node of a snapshot with the kind of its key: the rest of
// the key is the node's own reference and declaration (and, for a
// container's anchors, the run's name), so a snapshot does not store it
// (72 bytes a node, half a million nodes on a control repository).
type snapNode struct {
	n    *analysis.Node
	kind byte
}

// key rebuilds the key the node was made under in the run named run.
func (sn snapNode) key(run string) nodeKey {
	k := nodeKey{kind: sn.kind, ref: sn.n.Ref, at: sn.n.Decl}
	if sn.kind == 'A' || sn.kind == 'Z' {
		k.run = run
	}
	return k
}

// nodeFacts: the facts of s.nodes[i] when its run finished.
type nodeFacts struct {
	i     int32
	facts []analysis.Fact
}

// snapLinkSrc is a link as buildRun finds it.
type snapLinkSrc struct {
	at      source.Span
	targets []*analysis.Node
}

// defKeyOf is the key of a class, define or node definition node.
func defKeyOf(n *analysis.Node) (nodeKey, bool) {
	switch n.Kind {
	case "class":
		return nodeKey{kind: 'C', ref: n.Ref, at: n.Decl}, true
	case "define":
		return nodeKey{kind: 'D', ref: n.Ref, at: n.Decl}, true
	case "node":
		return nodeKey{kind: 'N', ref: n.Ref, at: n.Decl}, true
	}
	return nodeKey{}, false
}

// merge adds a finished run to the analysis, exactly as if it had been
// built here after the runs merged before it: a node another run already
// made is shared (this run only adds its refresh facts to it, as
// refreshFacts would), edges are shared the same way, diagnostics and
// links are added in the run's order.
//
// Nodes and edges are always copied into this analysis's own slabs, never
// taken over: a fork allocates them in slabs, and one node kept from a
// slab keeps the whole slab (and the fork's other nodes) alive. A
// snapshot of the previous analysis is copied too, since a client may
// still read the result it belongs to. The snapshot kept for the next
// analysis is rewritten to point at the copies, so neither the fork nor
// the previous result outlives the merge.
//
// A container's anchors are shared between runs here (one pair per
// class/define declaration, however many runs evaluate it): every run's
// own anchors already served its order and cycles, and keeping a pair per
// run made the result of a control repository 93% anchors and their
// edges (operations-puppet: 479k of 515k nodes, 1.15M of 1.16M edges).
// The anchors of Class[Main] and of stages without a declaration stay per
// run: sharing them would join unrelated runs through one hub.
func (a *analyzer) merge(name string, s *runSnap, own, patched bool) analysis.Run {
	a.runsMerged++
	a.req.Report(a.runsMerged, max(a.runsTotal, a.runsMerged))
	if a.diagsOnly() {
		return a.mergeDiagnostics(name, s)
	}
	m := a.mergeTable()
	ids := s.ids
	if ids == nil || ids.tab != m.tab {
		var like *runSnap // the run's last snapshot: a rebuilt or patched run is mostly the same
		if own || patched {
			like = a.prevSnap(name)
		}
		ids = m.tab.number(name, s, like)
	}
	m.grow()
	a.numberDefs(m)
	// The first run built here (the only one of a single manifest) is
	// taken as it is: every node and edge of it is new, the fork's slabs
	// hold nothing else, and copying a 100k-resource catalog cost a third
	// of its analysis.
	adopt := own && a.runsBuilt == 0
	// def is the node here of the definition node old, numbered id: a
	// run built here names this analysis's own; a snapshot's are an
	// earlier analysis's (or, foreign, not a definition node at all).
	def := func(old *analysis.Node, id int32) *analysis.Node {
		if own || id < 0 {
			return old
		}
		if _, ok := defKeyOf(old); ok {
			return m.nodes[id]
		}
		return old
	}
	news := a.mergeNews(len(s.nodes)) // the node here of each of the run's
	// at is the node here that the run's node or definition node ref
	// stands for (old: the snapshot's pointer), as far as the merge got
	// (an end not merged yet stays the snapshot's, as it always did).
	at := func(old *analysis.Node, ref int32) *analysis.Node {
		switch {
		case ref == noRef:
			return nil
		case ref >= 0:
			if n := news[ref]; n != nil {
				return n
			}
			return old
		}
		return def(old, -1-ref)
	}
	// here maps a node the snapshot does not number (a node's parent, a
	// cycle's member) as at does: one of the run's nodes merged so far, a
	// definition node (parents are, so they are remembered), else itself.
	var idx map[*analysis.Node]int32
	here := func(old *analysis.Node) *analysis.Node {
		if old == nil {
			return nil
		}
		if i := old.Index; i >= 0 && i < len(s.nodes) && s.nodes[i].n == old {
			if news[i] != nil {
				return news[i]
			}
			return old
		}
		if k, ok := defKeyOf(old); ok {
			if own {
				return old
			}
			n := m.parents[old]
			if n == nil {
				n = a.defNodes[k]
				if n != nil {
					m.parents[old] = n
				}
			}
			return n
		}
		if idx == nil {
			idx = make(map[*analysis.Node]int32, len(s.nodes))
			for i, sn := range s.nodes {
				idx[sn.n] = int32(i)
			}
		}
		if i, ok := idx[old]; ok && news[i] != nil {
			return news[i]
		}
		return old
	}
	next := *s
	next.ids, next.own = nil, false // (the result reads its steps)
	if !a.req.Once && !adopt && !s.own {
		next.nodes = make([]snapNode, len(s.nodes))
	}
	a.graph.Nodes = slices.Grow(a.graph.Nodes, len(s.nodes))
	local := a.uniqueRuns // a container's anchors without a declaration are the run's own
	fi := 0
	for i, sn := range s.nodes {
		old := sn.n
		var facts []analysis.Fact
		if fi < len(s.facts) && int(s.facts[fi].i) == i {
			facts = s.facts[fi].facts
			fi++
		}
		anchor := sn.kind == 'A' || sn.kind == 'Z'
		shared := anchor && !old.Decl.IsZero() // anchorKey
		id := ids.node[i]
		var n *analysis.Node
		switch {
		case adopt:
		case shared:
			n = m.nodes[id]
		case a.runsBuilt == 0 || (local && anchor):
		default:
			n = m.nodes[id]
		}
		if n != nil {
			addRefreshFacts(n, facts)
		} else {
			n = old
			if !adopt {
				n = a.copyNode(old)
				n.Parent = here(old.Parent)
			}
			n.Facts = nil
			if facts != nil {
				n.Facts = facts[:len(facts):len(facts)] // a later run's fact reallocates
			}
			a.graph.Add(n)
			m.nodes[id] = n // (a run's own anchors too: an edge's end is found here)
		}
		news[i] = n
		if !adopt && next.nodes != nil && !s.own {
			next.nodes[i] = snapNode{n, sn.kind}
		}
	}
	kept := ids
	if adopt {
		a.graph.Edges = append(a.graph.Edges, s.edges...)
		for j, e := range s.edges {
			if id := ids.edge[j]; id >= 0 {
				m.edges[id] = e // the last of equal edges, as a map of the graph's edges would hold
			}
		}
	} else {
		switch {
		case s.own:
			next.edges = s.edges[:0] // (edge j is read before the j+1st is written)
		case !a.req.Once:
			next.edges = make([]*analysis.Edge, 0, len(s.edges))
		}
		for j, e := range s.edges {
			var f, t *analysis.Node
			if ids.from != nil {
				f, t = at(e.From, ids.from[j]), at(e.To, ids.to[j])
			} else if id := ids.edge[j]; id >= 0 {
				ends := m.tab.ends[id]
				f, t = m.nodes[ends[0]], m.nodes[ends[1]]
			}
			if f == nil || t == nil {
				if kept == ids {
					kept = ids.upTo(j)
				}
				continue
			}
			id := ids.edge[j]
			var x *analysis.Edge
			if a.runsBuilt > 0 {
				x = m.edges[id]
			}
			if x == nil {
				x = a.graph.Connect(a.newEdge(analysis.Edge{From: f, To: t, Kind: e.Kind, Reason: e.Reason, At: e.At}))
				m.edges[id] = x
			}
			if !a.req.Once {
				next.edges = append(next.edges, x)
			}
			if kept != ids {
				kept.keepEdge(ids, j)
			}
		}
	}
	out := s.run
	if !s.own || out.Steps == nil {
		out.Steps = make([]analysis.Step, len(s.run.Steps))
	}
	for i, st := range s.run.Steps {
		st.Node = at(st.Node, ids.step[i])
		if st.Node != nil && unsafe.StringData(st.Label) != unsafe.StringData(st.Node.Ref) && st.Label == st.Node.Ref {
			st.Label = st.Node.Ref // one string for every run's step of the node
		}
		out.Steps[i] = st
	}
	if out.Alone {
		out.Note = aloneNote
		if a.unreached[name] {
			out.Note = unreachedNote
		}
	}
	next.run = out
	speaks := a.speaksAlone(name, s)
	for j, d := range s.diags {
		if len(d.Members) > 0 {
			// a cycle's resources, as this analysis's graph has them; the
			// snapshot kept names them too (a run built here named its
			// fork's nodes, whose memory the next fork reuses: runs.go)
			ms := make([]*analysis.Node, len(d.Members))
			for i, x := range d.Members {
				ms[i] = here(x)
			}
			d.Members = ms
			if !a.req.Once {
				if unsafe.SliceData(next.diags) == unsafe.SliceData(s.diags) {
					next.diags = slices.Clone(s.diags)
				}
				next.diags[j].Members = ms
			}
		}
		if speaks {
			a.addDiag(d)
		}
	}
	if len(a.linkArr) == 0 {
		n := s.linkCount()
		if !a.partial {
			n = max(n, a.linksWant)
		}
		a.linkArr = make([]analysis.Link, 0, n)
	}
	if len(s.defs) > 0 {
		next.defs = make([]*analysis.Node, len(s.defs))
		for i, d := range s.defs {
			next.defs[i] = def(d, ids.def[i])
		}
	}
	var ts []*analysis.Node // (linkTargets copies what it keeps)
	for i := range ids.link {
		tgt := s.links.tgt[s.links.start[i]:s.links.start[i+1]]
		ts = ts[:0]
		for _, t := range tgt {
			var n *analysis.Node
			if t >= 0 {
				n = news[t]
			} else {
				n = next.defs[-1-t]
			}
			if n != nil {
				ts = append(ts, n)
			}
		}
		a.mergeLink(m, ids.link[i], ts)
	}
	// Every run that evaluates a resource declares it under a key string
	// of its own; the snapshot kept keeps the first run's (30 MB of copies
	// on operations-puppet otherwise).
	quiet := a.unreached[name] // (unreached.go: settles nothing)
	for i, id := range ids.declared {
		if !quiet {
			m.declared[id] = true
		}
		if c := m.tab.declStr[id]; unsafe.StringData(c) != unsafe.StringData(s.declared[i]) && !a.req.Once {
			if unsafe.SliceData(next.declared) == unsafe.SliceData(s.declared) && !s.own {
				next.declared = slices.Clone(s.declared)
			}
			next.declared[i] = c
		}
	}
	if !quiet {
		a.declaredPats = append(a.declaredPats, s.patterns...)
		r := &run{a: a, name: name, missing: s.missing, absent: s.absent, unknownIncludes: s.unknownIncludes, synthetic: s.synthetic}
		if !speaks {
			r.missing = nil
		}
		a.allRuns = append(a.allRuns, r)
	}
	if !a.req.Once {
		if !kept.foreign {
			next.ids = kept.kept()
			next.links.at = nil // (linkAt: the table has them)
		}
		if a.nextCache[name] != nil { // (two runs of one name: neither is kept)
			if a.dupRuns == nil {
				a.dupRuns = map[string]bool{}
			}
			a.dupRuns[name] = true
		}
		if s.own { // (here read s.nodes until now)
			for i, n := range news[:len(s.nodes)] {
				s.nodes[i].n = n
			}
		}
		a.nextCache[name] = &next
	}
	if a.ownsPrev {
		a.prevMu.Lock()
		delete(a.prevCache, name)
		a.prevMu.Unlock()
	}
	a.runsBuilt++
	if !own {
		a.restored++
	}
	if !speaks {
		out.Refused = false // (its errors are the declaring run's; the snapshot keeps its verdict)
	}
	return out
}

// mergeLink adds a run's link numbered id at at: a place another run
// links from is one link, its targets each once.
func (a *analyzer) mergeLink(m *mergeState, id int32, targets []*analysis.Node) {
	if id < 0 {
		return
	}
	i := m.links[id] - 1
	if i < 0 {
		i = int32(len(a.linkArr))
		m.links[id] = i + 1
		a.linkArr = append(a.linkArr, analysis.Link{At: m.tab.linkAt[id]})
	}
	a.linkTargets(&m.seen, i, targets)
}

// mergeDiagnostics is merge for a caller that reads only diagnostics
// (check): the run's problems and what settleMissing needs, none of its
// nodes, edges, steps and links (a sixth of check's time on
// operations-puppet went to sharing them between runs).
func (a *analyzer) mergeDiagnostics(name string, s *runSnap) analysis.Run {
	speaks := a.speaksAlone(name, s)
	for _, d := range s.diags {
		if speaks {
			a.addDiag(ownMembers(d))
		}
	}
	missing := s.missing
	if !speaks {
		missing = nil
	}
	for i := range missing {
		if len(missing[i].d.Members) > 0 {
			if &missing[0] == &s.missing[0] {
				missing = slices.Clone(missing)
			}
			missing[i].d = ownMembers(missing[i].d)
		}
	}
	// What runs declare is only read to settle missing targets, which
	// most workspaces have none of (settleMissing indexes it then).
	a.declaredLater = append(a.declaredLater, s.declared)
	a.declaredPats = append(a.declaredPats, s.patterns...)
	a.allRuns = append(a.allRuns, &run{a: a, name: name, missing: missing, absent: s.absent, unknownIncludes: s.unknownIncludes, synthetic: s.synthetic})
	a.runsBuilt++
	out := s.run
	out.Steps = nil
	if !speaks {
		out.Refused = false
	}
	return out
}

// speaksAlone says whether the problems of run name are reported. Those
// of a class or define analysed alone (nothing in the workspace declares
// it by name) stand for callers the workspace does not hold, as if one
// declared it on every node. When a run of the workspace declares it
// after all (a class a Hiera level lists: `lookup('classes').include`),
// its callers are known: that run evaluated the body under the
// condition the node must meet (the Hiera level it reads), and the
// problems are that run's; the alone run only gives its resources a
// position. Otherwise one include in the body was an error (alone) and a
// warning naming the condition (the run), the error false on the nodes
// that do not read the level. Which runs declare it is the runs merged
// before: those that are not alone come first (Analyze). The snapshot
// keeps its problems: the next analysis decides again. Nor is such a run
// refused: a missing target it defers does not refuse it either
// (settleMissing).
func (a *analyzer) speaksAlone(name string, s *runSnap) bool {
	if len(s.declared) > 0 {
		a.anyDeclared = append(a.anyDeclared, s.declared)
	}
	if len(s.patterns) > 0 { // (instances of titles nobody knows: `Admin::User[*]`)
		a.anyDeclared = append(a.anyDeclared, s.patterns)
	}
	if !s.synthetic {
		if len(s.declared) > 0 {
			a.realDeclared = append(a.realDeclared, s.declared)
		}
		return true
	}
	if a.unreached[name] {
		return false // (unreachedSpecs)
	}
	if len(s.diags) == 0 && len(s.missing) == 0 {
		return true
	}
	kind, def, _ := strings.Cut(name, " ")
	if a.realDecl == nil {
		a.realDecl = map[string]bool{}
		a.realTypes = map[string]bool{}
	}
	// index the keys of the runs merged since the last time: class names
	// and defines' type names (keys are "Class[x]", "Mymod::Thing[title]")
	for _, keys := range a.realDeclared[a.realIndexed:] {
		for _, k := range keys {
			i := strings.IndexByte(k, '[')
			if i <= 0 {
				continue
			}
			typ := k[:i]
			if typ == "Class" {
				a.realDecl[k[i+1:len(k)-1]] = true
				continue
			}
			if _, seen := a.realTypes[typ]; !seen {
				a.realTypes[typ] = a.defines[strings.ToLower(typ)] != nil
			}
		}
	}
	a.realIndexed = len(a.realDeclared)
	switch kind {
	case "class":
		return !a.realDecl[def]
	case "define":
		return !a.realTypes[capType(def)]
	}
	return true
}

// ownMembers gives a diagnostic copies of the nodes it names: the run's
// own live in slabs the next runs fill again (mergeOut). Their parents
// are definition nodes, which outlive every run.
func ownMembers(d analysis.Diagnostic) analysis.Diagnostic {
	if len(d.Members) == 0 {
		return d
	}
	ms := make([]*analysis.Node, len(d.Members))
	for i, m := range d.Members {
		if m != nil {
			n := *m
			ms[i] = &n
		}
	}
	d.Members = ms
	return d
}

// anchorKey is the key a container's anchor is shared under between the
// runs of one analysis (see merge); shared is false for other nodes and
// for anchors without a declaration.
func anchorKey(k nodeKey) (nodeKey, bool) {
	if (k.kind != 'A' && k.kind != 'Z') || k.at.IsZero() {
		return k, false
	}
	k.run = ""
	return k, true
}

// copyNode copies a node into this analysis's slab.
func (a *analyzer) copyNode(old *analysis.Node) *analysis.Node {
	if len(a.nodeSlab) == cap(a.nodeSlab) {
		a.nodeSlab = make([]analysis.Node, 0, 256)
	}
	a.nodeSlab = append(a.nodeSlab, *old)
	return &a.nodeSlab[len(a.nodeSlab)-1]
}

// addRefreshFacts adds a run's "refreshed by" lines to a node another run
// made (creation facts are the first run's).
func addRefreshFacts(n *analysis.Node, facts []analysis.Fact) {
	for _, f := range facts {
		if f.Label != "refreshed by" {
			continue
		}
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

// classPlace identifies a class's definition node (what a link to the
// class points at), "" when there is none.
func classPlace(ci *classInfo) string {
	if ci == nil {
		return ""
	}
	d := ci.node.Decl
	return d.URI + ":" + strconv.Itoa(d.Start) + "-" + strconv.Itoa(d.End) + " " + ci.node.Ref
}
