// Package analysis is the neutral relationship graph every system lowers
// into, and the answers computed from it: execution order, cycles, hover
// text, Graphviz output.
//
// The language server and the command line only ever see this package's
// types. A system (Puppet, Salt, CFEngine, Chef, Rudder) turns syntax trees
// into a Result; nothing downstream knows which system produced it.
package analysis

import (
	"fmt"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Node is something that executes (a resource, state, promise, recipe,
// policy) or contains executing things (class, define, bundle, policy file).
type Node struct {
	// Kind is the system's own word: "resource", "class", "define", "node",
	// "state", "promise", "bundle", "body", "recipe", "policy", "directive"...
	Kind string
	// Ref is the display reference in the system's own notation:
	// `File[/etc/x]`, `pkg.installed nginx nginx`, `bundle agent main`.
	Ref string
	// Decl covers the words that name the node (a title, an ID, a handle);
	// hover and go-to-definition land here.
	Decl source.Span
	// Full covers the whole declaration (for document symbols and folding).
	Full source.Span
	// Parent is the container, or nil.
	Parent *Node
	// Container marks class/bundle/policy-like nodes: they group others and
	// show as symbols with children.
	Container bool
	// Hidden nodes (Puppet's whits, anchors) take part in ordering but are
	// never shown to users.
	Hidden bool
	// Facts are extra hover lines a system wants to explain, e.g.
	// {"order value", "10003 (auto-order: 3rd state)"}.
	Facts []Fact

	// Index is the node's position in Graph.Nodes, set by Graph.Add.
	Index int
}

// Fact is one labelled line of system-specific explanation.
type Fact struct {
	Label, Value string
	// Condition, on a "condition" fact, is the condition the declaration
	// depends on, as written: the per-node view names it where a node's
	// data decides against it, without reading the hover's sentence.
	Condition string
	// Template is Value with the lines it names kept as places
	// (LineMark), when it names any (see Diagnostic.Template).
	Template string
}

func (n *Node) String() string {
	if n == nil {
		return "<nil>"
	}
	return n.Ref
}

// EdgeKind says what an edge does at run time.
type EdgeKind uint8

const (
	// Order: From runs before To (before/require, requisites, depends_on,
	// run-list position).
	Order EdgeKind = iota
	// Refresh: ordering plus an event: a change in From triggers To
	// (notify/subscribe/~>, watch, onchanges).
	Refresh
	// Auto: an ordering the tool adds by itself (Puppet autorequire). An
	// explicit edge the other way suppresses it.
	Auto
	// Call: From invokes To (CFEngine methods, Chef include_policy, Puppet
	// include). Not an ordering constraint on its own.
	Call
	// Reference: From mentions To without any run-time effect (a body used
	// by a promise). Kept for references and the graph view.
	Reference
)

func (k EdgeKind) String() string {
	switch k {
	case Order:
		return "order"
	case Refresh:
		return "refresh"
	case Auto:
		return "auto"
	case Call:
		return "call"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// Orders reports whether the edge constrains execution order.
func (k EdgeKind) Orders() bool { return k == Order || k == Refresh || k == Auto }

// Edge is a relationship between two nodes and the words that created it.
// Direction is always execution direction: From runs (or is evaluated)
// before To, whichever side the user wrote it on.
type Edge struct {
	From, To *Node
	Kind     EdgeKind
	// Reason is the user's word for it: "require", "->", "watch_in",
	// "autorequire (parent directory)", "depends_on".
	Reason string
	// At covers the words that made the edge: the `require =>` reference,
	// the arrow, the requisite entry. Diagnostics and related information
	// point here. Autorequires point at the attribute that caused them.
	At source.Span
}

// Graph holds the nodes and edges of one system's view of a workspace.
type Graph struct {
	Nodes []*Node
	Edges []*Edge
}

// Add appends a node and returns it.
func (g *Graph) Add(n *Node) *Node {
	n.Index = len(g.Nodes)
	g.Nodes = append(g.Nodes, n)
	return n
}

// Connect appends an edge and returns it.
func (g *Graph) Connect(e *Edge) *Edge {
	g.Edges = append(g.Edges, e)
	return e
}

// In lists the edges ending at n; Out the edges starting at n. Both are
// linear scans: answers for one hover, not for algorithms (those build
// adjacency once).
func (g *Graph) In(n *Node) []*Edge {
	var out []*Edge
	for _, e := range g.Edges {
		if e.To == n {
			out = append(out, e)
		}
	}
	return out
}

// Out lists the edges starting at n.
func (g *Graph) Out(n *Node) []*Edge {
	var out []*Edge
	for _, e := range g.Edges {
		if e.From == n {
			out = append(out, e)
		}
	}
	return out
}
