package analysis

import (
	"sort"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Severity follows the LSP numbering so no table is needed at the edge.
type Severity uint8

const (
	Error Severity = 1 + iota
	Warning
	Info
	Hint
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return "unknown"
}

// Diagnostic is a problem found in the user's files. Messages use the real
// tool's words wherever it has them, so users can search for them.
type Diagnostic struct {
	At       source.Span
	Severity Severity
	// Code is a stable identifier: "syntax", "missing-target", "cycle",
	// "duplicate", "never-runs"... (used by SARIF rule ids and tests).
	Code    string
	Message string
	// Template is Message with the lines it names kept as places
	// (LineMark), when it names any: an edit above them moves them
	// (ShiftResult). Empty otherwise.
	Template string
	// Related points at the other words involved: each edge of a cycle, the
	// first declaration of a duplicate, the winner of a conflict.
	Related []Related
	// Source is the system name; filled in by the caller of Analyze.
	Source string
	// NeverRuns marks a diagnostic whose words name work that will
	// silently never run (a CFEngine promise held by depends_on, a
	// discarded Rudder directive): editors fade that text.
	NeverRuns bool
	// Unresolved marks a diagnostic whose words name something nobody
	// declares (a missing target, requisite or handle): a quick fix may
	// change the name to a declared one.
	Unresolved bool
	// Members are the nodes a loop holds (a cycle's resources, states,
	// promises, policies): none of them runs while it lasts, which code
	// lenses say on each.
	Members []*Node
	// Nodes are the nodes the problem occurs on when the workspace was
	// analysed once per node (AnalyzeNodes); nil otherwise.
	Nodes []string
}

// Loop reports whether the problem is a loop of relationships: a
// dependency cycle, a Chef include loop.
func (d Diagnostic) Loop() bool { return d.Code == "cycle" || d.Code == "include-loop" }

// RelationFixable reports whether editing one of the relationships the
// diagnostic points at (its own span or a related one) may fix it: loops,
// and work a relationship holds back (a CFEngine depends_on).
func (d Diagnostic) RelationFixable() bool { return d.Loop() || d.Code == "never-runs" }

// Related is one linked location of a diagnostic.
type Related struct {
	At      source.Span
	Message string
}

// Link is a reference in the text: a requisite, a `Type['title']`, an
// include, a handle in depends_on. Go-to-definition goes from At to the
// Nodes' Decl spans and to the Files (for includes of whole files);
// find-references goes the other way.
type Link struct {
	At    source.Span
	Nodes []*Node
	Files []source.Span // whole-file or non-node targets
	// Notes, when set, say what each of Files holds there (a Hiera
	// value), one per file: hover shows it beside the place
	Notes []string
	// Title, when set, says what the link is (a Hiera key): hover shows
	// it above the targets
	Title string
	// Gathers marks a link that gathers the targets of the links in the
	// words it governs (a Puppet metaparameter's name, those of its
	// value): hover and definition show them, but it is no reference of
	// its own (LinksTo, rename)
	Gathers bool
}

// Step is one line of an execution order.
type Step struct {
	Node *Node
	// Label is exactly what `ordering-lsp order` prints for the step, in
	// the real tool's oracle format (`Notify[a]`, `pass=1 bundle=main ...`).
	Label string
	// Note is shown in hovers and inlay hints next to the position
	// ("pass 2", "merged with 2 directives").
	Note string
	// Seq is the tool's own sequence number for the step, plus one, where
	// it has one that the order alone does not tell (Salt's __run_num__,
	// which a state shares with the next one when Salt gives up on it);
	// 0 otherwise.
	Seq int
}

// Run is one execution order: a catalog for an entry manifest, a
// highstate, a bundlesequence, a merged run list, a node's policies.
type Run struct {
	Name  string
	Entry string // URI of the file the run starts from, "" when none
	Steps []Step
	// Refused is true when the real tool would refuse to apply anything
	// (a cycle, a duplicate declaration, a missing target Puppet checks at
	// compile time). Steps are still computed as far as possible so hovers
	// keep working while the user fixes it.
	Refused bool
	// Alone marks a run the tool performs only when asked for one piece
	// by itself (Salt's `state.sls X` of an SLS no top target gives, a
	// Puppet class or define nothing declares, analysed as `include x`):
	// it gives every declaration a position to show, but no node gets it
	// from its classification.
	Alone bool
	// Note says what an Alone run stands for, beside its name where a
	// position in it is shown: a user reading "1st of 3 in `class x`"
	// otherwise cannot tell why no node's run holds the declaration.
	Note string
}

// Symbol is a document outline entry.
type Symbol struct {
	Node     *Node
	Children []*Symbol
}

// Result is everything one system knows about a workspace.
type Result struct {
	System string
	Graph  Graph
	Runs   []Run
	Diags  []Diagnostic
	Links  []Link
	// Files lists the URIs the system analysed, so diagnostics of a file
	// that became clean can be cleared.
	Files []string
	// Nodes lists the nodes analysed one by one (a check over a folder
	// of minion data), in order; nil when the analysis was not per node.
	Nodes []string
	// Partial: the system honoured Request.Focus. Only the diagnostics of
	// the focus documents are meant to be shown; runs, graph and other
	// files' diagnostics are incomplete.
	Partial bool
	// Follow, when set, moves r (this result, or one moved from it)
	// through an edit of code in a document the system owns, judged by
	// what this analysis read: when the edit changes nothing the result
	// says but where things are (a literal no rule of the system reads,
	// such as a file's mode typed in a class three hundred runs include;
	// text the parser drops, such as a statement half typed), it returns
	// what a fresh analysis of the new text gives (ShiftResult, and the
	// document's syntax errors read again); false when the edit must be
	// analysed. The server asks it instead of analysing the workspace
	// again; a moved result keeps it.
	Follow func(r *Result, old, cur *source.File, m Shift, line func(uri string, off int) int) (*Result, bool)
	// ShowRef, when set, is how hovers and symbols write a node's Ref and a step's
	// label for people: Salt's `pkg.installed nginx nginx` (the oracle's
	// module.function ID name, which order prints) is `pkg.installed
	// nginx` when the name is the ID. A moved result keeps it.
	ShowRef func(ref string) string

	involvedBy   *involvedCache // shared along the results moved from one analysis
	involvedInit sync.Once

	posOnce   sync.Once
	pos       posIndex
	nearOnce  sync.Once
	nearStart []int32 // edges at node i: nearEdges[nearStart[i]:nearStart[i+1]]
	nearEdges []*Edge
	nearExtra map[*Node][]*Edge // nodes not at their Index in the graph
}

// RunPos places a node in a run: Index is 0-based.
type RunPos struct {
	Run   *Run
	Index int
	Step  *Step
}

// Positions lists every place n appears in the runs (CFEngine promises may
// appear in several passes, Puppet resources in one catalog per entry).
func (r *Result) Positions(n *Node) []RunPos {
	r.indexPositions()
	es := r.pos.other[n]
	if i := r.slot(n); i >= 0 {
		es = r.pos.at[r.pos.start[i]:r.pos.start[i+1]]
	}
	if len(es) == 0 {
		return nil
	}
	out := make([]RunPos, len(es))
	for k, e := range es {
		out[k] = r.runPos(e)
	}
	return out
}

// NodesAt returns the nodes whose declaration covers off in uri, innermost
// (shortest span) first.
func (r *Result) NodesAt(uri string, off int) []*Node {
	var out []*Node
	for _, n := range r.Graph.Nodes {
		if n.Decl.URI == uri && !n.Hidden && n.Decl.Contains(off) {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Decl.End-out[i].Decl.Start < out[j].Decl.End-out[j].Decl.Start
	})
	return out
}

// LinksAt returns the links whose text covers off in uri, innermost first.
func (r *Result) LinksAt(uri string, off int) []*Link {
	var out []*Link
	for i := range r.Links {
		l := &r.Links[i]
		if l.At.URI == uri && l.At.Contains(off) {
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].At.End-out[i].At.Start < out[j].At.End-out[j].At.Start
	})
	return out
}

// EdgesAt returns the edges made at a place that holds off in uri (a
// Puppet chaining arrow is the place of the edges it makes), in graph
// order. It looks only at the edges written in uri (involved, kept per
// result and document), not the whole graph: a cursor resting on
// nothing asks it at every move (document highlight).
func (r *Result) EdgesAt(uri string, off int) []*Edge {
	var out []*Edge
	for _, i := range r.involved(uri).edges {
		if e := r.Graph.Edges[i]; e.At.URI == uri && e.At.Start <= off && off < e.At.End {
			out = append(out, e)
		}
	}
	return out
}

// LinksTo returns the links that point at n.
func (r *Result) LinksTo(n *Node) []*Link {
	var out []*Link
	for i := range r.Links {
		if r.Links[i].Gathers {
			continue
		}
		for _, t := range r.Links[i].Nodes {
			if t == n {
				out = append(out, &r.Links[i])
				break
			}
		}
	}
	return out
}

// LinksToFile returns the links whose file targets name uri.
func (r *Result) LinksToFile(uri string) []*Link {
	var out []*Link
	for i := range r.Links {
		for _, f := range r.Links[i].Files {
			if f.URI == uri {
				out = append(out, &r.Links[i])
				break
			}
		}
	}
	return out
}

// LinksToPlace returns the links that lead to the place at (a span of
// text, not a whole file: a variable's definition, a Hiera key's line).
func (r *Result) LinksToPlace(at source.Span) []*Link {
	var out []*Link
	for i := range r.Links {
		for _, f := range r.Links[i].Files {
			if f == at {
				out = append(out, &r.Links[i])
				break
			}
		}
	}
	return out
}

// Place reports whether a link's file target is a place in the file
// rather than the whole file.
func Place(f source.Span) bool { return f.End > f.Start }

// LinksLike returns l and the other links of r made on the same words
// (a class parameter is a Hiera key and a variable): l first.
func (r *Result) LinksLike(l *Link) []*Link {
	out := []*Link{l}
	for i := range r.Links {
		if o := &r.Links[i]; o != l && o.At == l.At {
			out = append(out, o)
		}
	}
	return out
}

// Symbols builds the outline of one file from the containment tree.
func (r *Result) Symbols(uri string) []*Symbol {
	byNode := map[*Node]*Symbol{}
	var roots []*Symbol
	for _, n := range r.Graph.Nodes {
		if n.Hidden || n.Decl.URI != uri {
			continue
		}
		byNode[n] = &Symbol{Node: n}
	}
	for _, n := range r.Graph.Nodes {
		s := byNode[n]
		if s == nil {
			continue
		}
		p := n.Parent
		for p != nil && byNode[p] == nil {
			p = p.Parent
		}
		if p != nil {
			byNode[p].Children = append(byNode[p].Children, s)
		} else {
			roots = append(roots, s)
		}
	}
	return roots
}
