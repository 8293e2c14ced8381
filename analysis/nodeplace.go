package analysis

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// NodeResult is a system's analysis of the workspace as one node sees it
// (NodeSetting naming the node): its facts decide the conditions, its
// name the classification.
type NodeResult struct {
	Node   NodeInfo
	Result *Result
}

// EachNode analyses the files once per node with data (a fact set, a
// minion's grains), on the same System value so its parse cache serves
// every node, and hands each result to fn in the order the system lists
// the nodes. It stops when the context is canceled.
func EachNode(s System, in Input, files []*source.File, fn func(NodeResult)) {
	nl, ok := s.(NodeLister)
	if !ok {
		return
	}
	for _, n := range nl.Nodes(request(in, files)) {
		if !n.Data {
			continue
		}
		if in.Ctx != nil && in.Ctx.Err() != nil {
			return
		}
		nin := in
		nin.Settings = make(Settings, len(in.Settings)+1)
		for k, v := range in.Settings {
			nin.Settings[k] = v
		}
		nin.Settings[NodeSetting] = n.Name
		fn(NodeResult{Node: n, Result: Analyze(s, nin, files)})
	}
}

// NodePlace is where one declaration stands on one node: the answer the
// "all nodes" view gives for the declaration under the cursor, per node.
type NodePlace struct {
	Node NodeInfo
	// Refs: what the node's analysis calls the declaration (a title
	// built from facts is known there: `Package[$pkg]` is
	// `Package[httpd]` on a RedHat node); several for a definition
	// declared more than once.
	Refs []string
	// Runs: every place it takes in the node's runs.
	Runs []NodeRunPlace
	// Absent says why the node's order lacks it; "" when it has it.
	Absent string
	// Problems: the node's diagnostics on the declaration (a cycle it
	// is in, a relationship to what the node lacks).
	Problems []string
}

// NodeRunPlace is one position in one of a node's runs.
type NodeRunPlace struct {
	Run     string
	Index   int // 1-based
	Of      int
	Refused bool
}

// PlaceOnNodes answers, for the declaration n of the all-nodes analysis,
// where it runs on each node of per (the same system's analyses of
// the same text, one per node), or why it does not run there. Nodes are
// matched by their declaration's span: the text is the same, what is
// declared there may differ (a title from facts, a branch not taken).
func PlaceOnNodes(n *Node, per []NodeResult, where func(source.Span) string) []NodePlace {
	out := make([]NodePlace, 0, len(per))
	for _, nr := range per {
		out = append(out, placeOn(n, nr, where))
	}
	return out
}

func placeOn(n *Node, nr NodeResult, where func(source.Span) string) NodePlace {
	p := NodePlace{Node: nr.Node}
	r := nr.Result
	if r == nil {
		p.Absent = "not analysed"
		return p
	}
	var same []*Node
	for _, x := range r.Graph.Nodes {
		if x.Decl == n.Decl && !x.Hidden {
			same = append(same, x)
		}
	}
	var alone []NodeRunPlace
	for _, x := range same {
		p.Refs = appendOnce(p.Refs, x.Ref)
		for _, rp := range r.Positions(x) {
			pl := NodeRunPlace{Run: rp.Run.Name, Index: rp.Index + 1, Of: len(rp.Run.Steps), Refused: rp.Run.Refused}
			if rp.Run.Alone {
				alone = append(alone, pl)
			} else {
				p.Runs = append(p.Runs, pl)
			}
		}
		for i := range r.Diags {
			d := &r.Diags[i]
			if d.Severity > Warning {
				continue
			}
			hit := d.At.URI == n.Decl.URI && d.At.Start < n.Decl.End && n.Decl.Start < d.At.End
			for _, m := range d.Members {
				hit = hit || m == x
			}
			if hit {
				p.Problems = appendOnce(p.Problems, firstLine(d.Message))
			}
		}
	}
	switch {
	case len(same) == 0:
		p.Absent = absentWhy(n, r, where)
	case len(p.Runs) == 0 && len(alone) > 0:
		p.Absent = absentWhy(n, r, where) + fmt.Sprintf("; `%s` would run it %s of %d", alone[0].Run, Ordinal(alone[0].Index), alone[0].Of)
	case len(p.Runs) == 0 && !n.Container:
		p.Absent = "declared, but in none of this node's runs"
	}
	return p
}

// absentWhy says why a node's analysis has nothing at n's declaration:
// the code there is not evaluated for it (its classification never
// reaches the file), or it is, and a condition on facts or data leaves
// the declaration out.
func absentWhy(n *Node, r *Result, where func(source.Span) string) string {
	reached := false
	for _, x := range r.Graph.Nodes {
		if x.Decl.URI != n.Decl.URI {
			continue
		}
		for _, rp := range r.Positions(x) {
			reached = reached || !rp.Run.Alone
		}
		if reached {
			break
		}
	}
	if !reached {
		file := n.Decl.URI
		if where != nil {
			file = where(source.Span{URI: n.Decl.URI})
			if i := strings.LastIndexByte(file, ':'); i > 0 && strings.Trim(file[i+1:], "0123456789") == "" {
				file = file[:i] // the line of the file's start
			}
		}
		return fmt.Sprintf("not in this node's order: none of its runs reaches %s (its classification does not include it)", file)
	}
	for _, f := range n.Facts {
		if f.Condition != "" {
			return "not declared on this node: declared only when " + f.Condition + ", and its data decides otherwise"
		}
	}
	return "not declared on this node: the code around it is evaluated, but not this declaration (a branch its data does not take)"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}
