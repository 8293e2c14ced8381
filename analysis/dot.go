package analysis

import (
	"fmt"
	"io"
	"strings"
)

// WriteDOT writes the relationship graphs of results as Graphviz DOT: one
// cluster per system, nodes labelled with their position in the first run
// that holds them, containers as dashed boxes, refresh edges dashed, edges
// on a cycle and the nodes they join in red.
func WriteDOT(w io.Writer, results []*Result) error {
	var b strings.Builder
	b.WriteString("digraph ordering {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	for ri, r := range results {
		onCycle := map[*Edge]bool{}
		cycleNode := map[*Node]bool{}
		for _, c := range Cycles(r.Graph.Nodes, r.Graph.Edges, ByIndex) {
			for _, e := range c {
				onCycle[e] = true
				cycleNode[e.From] = true
				cycleNode[e.To] = true
			}
		}
		fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s;\n", ri, dotQuote(r.System))
		id := func(n *Node) string { return fmt.Sprintf("n%d_%d", ri, n.Index) }
		for _, n := range r.Graph.Nodes {
			label := n.Ref
			if ps := r.Positions(n); len(ps) > 0 {
				label = fmt.Sprintf("%d. %s", ps[0].Index+1, n.Ref)
			}
			attrs := []string{"label=" + dotQuote(label)}
			if n.Container {
				attrs = append(attrs, "style=dashed")
			}
			if n.Hidden {
				attrs = append(attrs, "shape=point")
			}
			if cycleNode[n] {
				attrs = append(attrs, "color=red", "fontcolor=red", "penwidth=2")
			}
			fmt.Fprintf(&b, "    %s [%s];\n", id(n), strings.Join(attrs, ", "))
		}
		for _, e := range r.Graph.Edges {
			attrs := []string{"label=" + dotQuote(e.Reason)}
			switch e.Kind {
			case Refresh:
				attrs = append(attrs, "style=dashed")
			case Auto:
				attrs = append(attrs, "style=dotted")
			case Call, Reference:
				attrs = append(attrs, "color=gray", "fontcolor=gray")
			}
			if onCycle[e] {
				attrs = append(attrs, "color=red", "fontcolor=red", "penwidth=2")
			}
			fmt.Fprintf(&b, "    %s -> %s [%s];\n", id(e.From), id(e.To), strings.Join(attrs, ", "))
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
