package salt

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// runRecord is what one run adds to a Result, with nodes private to the
// record (keyed by nodeKey): it can be replayed into a later analysis
// when the run's files have not changed.
type runRecord struct {
	run   analysis.Run
	files []string // URIs of the files that make the run
	// keyList[n.Index] is the key of record node n
	keyList []nodeKey
	funs    map[*analysis.Node]string
	edges   []*analysis.Edge
	// edgeEntries[i] is the requisite entry that made edges[i]
	edgeEntries []*reqEntry
	links       []linkRec
	diags       []analysis.Diagnostic
	ctx         []ctxRec
	facts       []factRec
	inFacts     []inFact

	// while recording only
	tmp      map[nodeKey]*analysis.Node
	edgeSeen map[edgeKey]bool
}

type linkRec struct {
	e     *reqEntry // nil for include, extend, _in links
	at    source.Span
	nodes []*analysis.Node
	files []source.Span
}

type ctxRec struct {
	d           analysis.Diagnostic
	target, mod string
}

type factRec struct {
	n            *analysis.Node
	label, value string
}

// real returns the Result's node for a record's node, creating it once.
func (a *analyzer) real(rec *runRecord, n *analysis.Node) *analysis.Node {
	if r := a.realOf[n.Index]; r != nil {
		return r
	}
	key := rec.keyList[n.Index]
	r, ok := a.nodes[key]
	if !ok {
		r = a.res.Graph.Add(&analysis.Node{Kind: n.Kind, Ref: n.Ref, Decl: n.Decl, Full: n.Full})
		a.nodes[key] = r
	}
	a.realOf[n.Index] = r
	return r
}

func (a *analyzer) realAll(rec *runRecord, ns []*analysis.Node) []*analysis.Node {
	out := make([]*analysis.Node, len(ns))
	for i, n := range ns {
		out[i] = a.real(rec, n)
	}
	return out
}

// apply adds a recorded run to the analysis.
func (a *analyzer) apply(rec *runRecord) {
	a.realOf = make([]*analysis.Node, len(rec.keyList))
	a.runSeen = map[string]bool{}
	a.curRun = map[string]bool{}
	for _, u := range rec.files {
		a.curRun[u] = true
		a.runFiles[u]++
	}
	run := rec.run
	run.Steps = make([]analysis.Step, len(rec.run.Steps))
	for i, st := range rec.run.Steps {
		st.Node = a.real(rec, st.Node)
		run.Steps[i] = st
	}
	for i, e := range rec.edges {
		from, to := a.real(rec, e.From), a.real(rec, e.To)
		ek := edgeKey{from, to, rec.edgeEntries[i], e.Kind == analysis.Order}
		if a.edges[ek] == nil {
			a.edges[ek] = a.res.Graph.Connect(&analysis.Edge{From: from, To: to, Kind: e.Kind, Reason: e.Reason, At: e.At})
		}
	}
	for _, l := range rec.links {
		if l.e != nil {
			a.linkEntry(l.e, a.realAll(rec, l.nodes), l.files)
		} else {
			a.link(l.at, a.realAll(rec, l.nodes), l.files)
		}
	}
	for _, d := range rec.diags {
		a.diag(d)
	}
	for _, c := range rec.ctx {
		a.contextual(c.d, c.target, c.mod)
	}
	for _, f := range rec.facts {
		a.fact(a.real(rec, f.n), f.label, f.value)
	}
	for _, f := range rec.inFacts {
		a.inFacts = append(a.inFacts, inFact{a.real(rec, f.n), f.o})
	}
	a.res.Runs = append(a.res.Runs, run)
}
