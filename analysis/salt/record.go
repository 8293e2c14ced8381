package salt

import (
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// runRecord is what one run adds to a Result, with nodes private to the
// record (keyed by nodeKey): it can be replayed into a later analysis
// when the run's files have not changed.
type runRecord struct {
	gen   int // the last analysis that used it
	run   analysis.Run
	files []string // URIs of the files that make the run
	// keyList[n.Index] is the key of record node n, info its spans
	keyList []nodeKey
	info    []nodeInfo
	funs    []string // the function of the chunk that made each node
	edges   []edgeRec
	links   []linkRec // while recording; then agg
	agg     []aggLink
	diags   []analysis.Diagnostic
	ctx     []ctxRec
	facts   []factRec
	inFacts []inFact
	// for patching (patch.go): the files as rendered (a top file first),
	// and for each chunk in sorted order its node and order value
	sfiles     []*sfile
	chunkNode  []int32
	chunkOrder []float64

	// while recording only
	tmp      map[nodeKey]*analysis.Node
	edgeSeen map[edgeKey]bool
}

type nodeInfo struct {
	ref        string
	decl, full source.Span
}

type linkRec struct {
	e     *reqEntry // nil for include, extend, _in links
	at    source.Span
	nodes []int32 // record node indices
	files []source.Span
}

// edgeRec is an edge between record nodes (by index); At is e.span.
type edgeRec struct {
	from, to int32
	kind     analysis.EdgeKind
	reason   string
	e        *reqEntry
}

func indices(ns []*analysis.Node) []int32 {
	if len(ns) == 0 {
		return nil
	}
	out := make([]int32, len(ns))
	for i, n := range ns {
		out[i] = int32(n.Index)
	}
	return out
}

type ctxRec struct {
	d           analysis.Diagnostic
	target, mod string
	maybe       bool      // contextualMaybe's
	cands       []reqCand // (maybe) the states that may be the target
}

type factRec struct {
	n            *analysis.Node
	label, value string
}

// real returns the Result's node for a record's node (by index),
// creating it once. The first record applied needs no lookup (nothing
// can be shared yet); the maps are filled when a second record comes.
func (a *analyzer) real(rec *runRecord, i int32) *analysis.Node {
	if r := a.realOf[i]; r != nil {
		return r
	}
	key := rec.keyList[i]
	var r *analysis.Node
	ok := false
	if a.applied > 1 {
		r, ok = a.nodes[key]
	}
	if !ok {
		info := rec.info[i]
		if len(a.nodeSlab) == 0 {
			// (in blocks: later records mostly find their nodes made)
			a.nodeSlab = make([]analysis.Node, min(len(rec.keyList)-int(i), 256))
		}
		r = &a.nodeSlab[0]
		a.nodeSlab = a.nodeSlab[1:]
		*r = analysis.Node{Kind: "state", Ref: info.ref, Decl: info.decl, Full: info.full}
		a.res.Graph.Add(r)
		if a.applied > 1 {
			a.nodes[key] = r
		}
	}
	a.realOf[i] = r
	return r
}

// shareMaps fills the node and edge maps with what the first record made
// (before a second record is applied).
func (a *analyzer) shareMaps() {
	rec := a.firstRec
	for i, r := range a.firstReal {
		if r != nil {
			a.nodes[rec.keyList[i]] = r
		}
	}
	for i, e := range rec.edges {
		from, to := a.firstReal[e.from], a.firstReal[e.to]
		a.edges[edgeKey{from, to, e.e, e.kind == analysis.Order}] = a.firstEdges[i]
	}
	a.firstReal, a.firstEdges = nil, nil
}

// realAll maps record nodes into a buffer reused between calls (link
// accumulators copy what they keep).
func (a *analyzer) realAll(rec *runRecord, ns []int32) []*analysis.Node {
	a.buf = a.buf[:0]
	for _, n := range ns {
		a.buf = append(a.buf, a.real(rec, n))
	}
	return a.buf
}

// apply adds a recorded run to the analysis.
func (a *analyzer) apply(rec *runRecord) {
	a.applied++
	if a.applied == 2 {
		a.shareMaps()
	}
	a.realOf = make([]*analysis.Node, len(rec.keyList))
	a.nodeSlab = nil
	a.runSeen = map[string]bool{}
	a.curRun = map[string]bool{}
	for _, u := range rec.files {
		a.curRun[u] = true
		a.runFiles[u]++
	}
	if a.minion != nil && rec.run.Name == "highstate "+a.minion.id {
		a.minionFiles = map[string]bool{}
		for _, u := range rec.files {
			a.minionFiles[u] = true
		}
	}
	if strings.HasPrefix(rec.run.Name, "state.sls ") {
		if a.slsRunFiles == nil {
			a.slsRunFiles = map[string][]string{}
		}
		a.slsRunFiles[rec.run.Entry] = rec.files
	}
	run := rec.run
	run.Steps = make([]analysis.Step, len(rec.run.Steps))
	for i, st := range rec.run.Steps {
		st.Node = a.real(rec, int32(st.Node.Index))
		run.Steps[i] = st
	}
	if a.applied == 1 {
		slab := make([]analysis.Edge, len(rec.edges))
		// a record's edges are distinct
		a.firstRec = rec
		a.firstEdges = make([]*analysis.Edge, len(rec.edges))
		a.res.Graph.Edges = slices.Grow(a.res.Graph.Edges, len(rec.edges))
		for i, e := range rec.edges {
			ed := &slab[i]
			*ed = analysis.Edge{From: a.real(rec, e.from), To: a.real(rec, e.to), Kind: e.kind, Reason: e.reason, At: e.e.span}
			a.firstEdges[i] = a.res.Graph.Connect(ed)
		}
	} else {
		for _, e := range rec.edges {
			from, to := a.real(rec, e.from), a.real(rec, e.to)
			ek := edgeKey{from, to, e.e, e.kind == analysis.Order}
			if a.edges[ek] == nil {
				a.edges[ek] = a.res.Graph.Connect(&analysis.Edge{From: from, To: to, Kind: e.kind, Reason: e.reason, At: e.e.span})
			}
		}
	}
	a.indexLinks()
	for _, l := range rec.agg {
		if acc := a.links[l.at]; acc != nil {
			acc.add(a.realAll(rec, l.nodes), l.files)
			continue
		}
		acc := &linkAcc{at: l.at, files: l.files[:len(l.files):len(l.files)]}
		if len(l.nodes) > 0 {
			acc.list = make([]*analysis.Node, len(l.nodes))
			for i, n := range l.nodes {
				acc.list[i] = a.real(rec, n)
			}
		}
		a.linkList = append(a.linkList, acc)
	}
	if len(rec.sfiles) > 0 {
		root := rec.sfiles[0].root
		a.curRoot = &root
	}
	for _, d := range rec.diags {
		a.diag(d)
	}
	a.curRoot = nil
	for _, c := range rec.ctx {
		a.contextualRec(c)
	}
	for _, f := range rec.facts {
		a.fact(a.real(rec, int32(f.n.Index)), f.label, f.value)
	}
	for _, f := range rec.inFacts {
		a.inFacts = append(a.inFacts, inFact{a.real(rec, int32(f.n.Index)), f.o})
	}
	a.res.Runs = append(a.res.Runs, run)
	if a.applied == 1 {
		a.firstReal = a.realOf
	}
}

// aggLink is what a record's links at one span add up to (in the order
// the analyzer's link accumulators would be made for them).
type aggLink struct {
	at    source.Span
	nodes []int32
	files []source.Span
}

// aggregateLinks merges a record's links by span, as linkEntry and link
// would: an entry naming nothing makes nothing, a node or file once.
func aggregateLinks(links []linkRec) []aggLink {
	idx := make(map[source.Span]int, len(links))
	var out []aggLink
	for _, l := range links {
		if l.e != nil && len(l.nodes) == 0 && len(l.files) == 0 {
			continue
		}
		i, ok := idx[l.at]
		if !ok {
			i = len(out)
			idx[l.at] = i
			out = append(out, aggLink{at: l.at})
		}
		g := &out[i]
		for _, n := range l.nodes {
			if !slices.Contains(g.nodes, n) {
				g.nodes = append(g.nodes, n)
			}
		}
		for _, f := range l.files {
			if !slices.Contains(g.files, f) {
				g.files = append(g.files, f)
			}
		}
	}
	return out
}
