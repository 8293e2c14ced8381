package analysis

import "github.com/ordering-lsp/ordering-lsp/source"

// Completer is implemented by systems that can tell what a reference being
// typed may name: the resources of a type in `require => Package['`, the
// states in a Salt requisite list, the handles in a CFEngine depends_on.
// The system reads the text (it alone knows the syntax); the server ranks
// the items, says where each target runs and warns about cycles.
type Completer interface {
	// Complete returns what may be written at req.Offset, or nil when it
	// is not in a reference. It only reads: it may run while the system
	// analyses.
	Complete(req CompletionRequest) *Completion
}

// CompletionRequest is where the cursor is and what is known.
type CompletionRequest struct {
	// Result is the latest analysis of the workspace (File's own
	// declarations may be missing from it while File does not parse).
	Result *Result
	File   *source.File
	Offset int
	// Workspace reads other files (a target's text, a file root's top.sls).
	Workspace *source.Workspace
	Settings  Settings
}

// Completion is the answer of a Completer.
type Completion struct {
	// Replace is the text the chosen item replaces: what is typed of the
	// name so far (it ends at the cursor).
	Replace source.Span
	Items   []CompletionItem
	// From is the declaration the reference is written in (nil when none).
	// When Orders is set, choosing an item adds an ordering edge between
	// From and the item's node: TargetFirst says the target would run
	// before From (require, subscribe, a requisite), else after it (before,
	// notify, require_in). The server uses it to flag items that would
	// close a cycle.
	From        *Node
	Orders      bool
	TargetFirst bool
}

// CompletionItem is one thing that may be written.
type CompletionItem struct {
	// Label is what the list shows and what the typed text is matched
	// against.
	Label string
	// Insert replaces Completion.Replace ("" means Label).
	Insert string
	// Node is the target, nil for files (SLS paths, Policyfiles).
	Node *Node
	// Detail is shown when Node is nil.
	Detail string
	// Attribute marks the name of an attribute or parameter (editors show
	// it as a property, not as a file).
	Attribute bool
}

// Enclosing returns the innermost visible declaration whose full span
// holds off in uri (the resource a metaparameter is written in).
func (r *Result) Enclosing(uri string, off int) *Node {
	var best *Node
	for _, n := range r.Graph.Nodes {
		full := n.Full
		if n.Hidden || full.URI != uri || full.Start > off || off > full.End {
			continue
		}
		if best == nil || full.End-full.Start < best.Full.End-best.Full.Start {
			best = n
		}
	}
	return best
}

// Reachable returns the nodes ordered after n (forward) or before it (not
// forward) by ordering edges, n included, following hidden anchors. One
// search answers "would this edge close a cycle" for every candidate of
// a completion.
func (r *Result) Reachable(n *Node, forward bool) map[*Node]bool {
	next := map[*Node][]*Node{}
	for _, e := range r.Graph.Edges {
		if e.Kind.Orders() {
			if forward {
				next[e.From] = append(next[e.From], e.To)
			} else {
				next[e.To] = append(next[e.To], e.From)
			}
		}
	}
	seen := map[*Node]bool{n: true}
	queue := []*Node{n}
	// a container's edges hang on its anchors: start from them too
	for _, m := range r.Graph.Nodes {
		if m.Hidden && m.Parent == n {
			seen[m] = true
			queue = append(queue, m)
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range next[x] {
			if !seen[y] {
				seen[y] = true
				queue = append(queue, y)
			}
		}
	}
	return seen
}
