package lsp

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// decl is one declaration as the user wrote it. A system may evaluate it
// into many nodes (a Puppet class in every role's catalog, a CFEngine
// promise in each pass): the editor features that speak of "this
// resource" speak of all of them at once.
type decl struct {
	ref   string
	at    source.Span
	nodes []placed
}

// placed is a node with the result it belongs to.
type placed struct {
	r *analysis.Result
	n *analysis.Node
}

type declKey struct {
	ref string
	at  source.Span
}

// declarations groups the visible nodes declared in uri ("" for all
// files), in text order.
func declarations(results []*analysis.Result, uri string) []*decl {
	by := map[declKey]*decl{}
	var out []*decl
	for _, r := range results {
		for _, n := range r.Graph.Nodes {
			if n.Hidden || n.Decl.IsZero() || (uri != "" && n.Decl.URI != uri) {
				continue
			}
			k := declKey{n.Ref, n.Decl}
			d := by[k]
			if d == nil {
				d = &decl{ref: n.Ref, at: n.Decl}
				by[k] = d
				out = append(out, d)
			}
			d.nodes = append(d.nodes, placed{r, n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].at.URI != out[j].at.URI {
			return out[i].at.URI < out[j].at.URI
		}
		return out[i].at.Start < out[j].at.Start
	})
	return out
}

// findDecl returns the declaration of ref at span, or nil.
func findDecl(results []*analysis.Result, ref string, at source.Span) *decl {
	for _, d := range declarations(results, at.URI) {
		if d.ref == ref && d.at == at {
			return d
		}
	}
	return nil
}

// neighbour is one declaration related to another, with every edge that
// relates them (one per run it was evaluated in, or several metaparameters).
type neighbour struct {
	ref   string
	at    source.Span
	node  placed
	edges []*analysis.Edge
}

// related gathers, over all of d's nodes, the neighbours pick chooses
// from their Relations, merged by declaration.
func (d *decl) related(pick func(analysis.Relations) []analysis.Neighbour) []*neighbour {
	by := map[declKey]*neighbour{}
	var out []*neighbour
	for _, p := range d.nodes {
		for _, x := range pick(p.r.Relations(p.n)) {
			if x.Node.Hidden {
				continue
			}
			k := declKey{x.Node.Ref, x.Node.Decl}
			nb := by[k]
			if nb == nil {
				nb = &neighbour{ref: x.Node.Ref, at: x.Node.Decl, node: placed{p.r, x.Node}}
				by[k] = nb
				out = append(out, nb)
			}
			nb.edges = append(nb.edges, x.Edge)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ref < out[j].ref })
	return out
}

// placedInRun returns the first of d's nodes that has a place in a run.
func (d *decl) placedInRun() placed {
	for _, p := range d.nodes {
		if len(p.r.Positions(p.n)) > 0 {
			return p
		}
	}
	return d.nodes[0]
}

func waits(r analysis.Relations) []analysis.Neighbour {
	return append(append([]analysis.Neighbour(nil), r.Waits...), r.Calls...)
}

func dependents(r analysis.Relations) []analysis.Neighbour {
	return append(append([]analysis.Neighbour(nil), r.Before...), r.CalledBy...)
}

// position says where a node runs: "runs 3rd of 17" (the first run it is
// in; "elsewhere in 2 more runs" when there are more), or "" when it is in
// none. A focused analysis's result (Partial) has only some of the runs:
// the others are not counted.
func position(p placed) string {
	ps := p.r.Positions(p.n)
	if len(ps) == 0 {
		return ""
	}
	s := "runs " + analysis.Ordinal(ps[0].Index+1) + " of " + strconv.Itoa(len(ps[0].Run.Steps))
	if p.r.Partial {
		return s
	}
	for _, q := range ps[1:] {
		// the same place in another run (a highstate and the SLS alone) adds nothing
		if q.Index != ps[0].Index || len(q.Run.Steps) != len(ps[0].Run.Steps) {
			return s + " (elsewhere in " + analysis.Count(len(ps)-1, "more run", "more runs") + ")"
		}
	}
	return s
}

// reasons lists the distinct words that made the edges ("require, ~>").
func reasons(es []*analysis.Edge) string {
	seen := map[string]bool{}
	var out []string
	for _, e := range es {
		if e.Reason != "" && !seen[e.Reason] {
			seen[e.Reason] = true
			out = append(out, e.Reason)
		}
	}
	return strings.Join(out, ", ")
}
