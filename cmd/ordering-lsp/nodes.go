package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// A check that ran once per node (a folder of Salt minion data) reports
// each problem once with the nodes it occurs on; the team asking "does
// every role work on every machine we run" reads the answer as a table:
// one row per node, how many problems of each severity it has.

// allNodes lists the nodes the results were analysed for, in order.
func allNodes(results []*analysis.Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range results {
		for _, n := range r.Nodes {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// nodesLine says where a problem occurs: "on 3 of 20 nodes: a, b, c".
func nodesLine(d analysis.Diagnostic, nodes []string) string {
	if len(d.Nodes) == 0 || len(nodes) == 0 {
		return ""
	}
	if len(d.Nodes) == len(nodes) {
		return fmt.Sprintf("on all %d nodes", len(nodes))
	}
	return fmt.Sprintf("on %d of %d nodes: %s", len(d.Nodes), len(nodes), strings.Join(d.Nodes, ", "))
}

// writeNodeTable prints nodes x problems (grouped as the text output
// groups them): errors, warnings, information per node.
func writeNodeTable(w io.Writer, diags []analysis.Diagnostic, nodes []string) {
	if len(nodes) == 0 {
		return
	}
	count := map[string]*[3]int{}
	for _, n := range nodes {
		count[n] = &[3]int{}
	}
	for _, p := range group(diags) {
		i := int(p.d.Severity) - 1
		if i > 2 {
			i = 2
		}
		for _, n := range p.d.Nodes {
			if c := count[n]; c != nil {
				c[i]++
			}
		}
	}
	failing := 0
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "node\terrors\twarnings\tinfo")
	for _, n := range nodes {
		c := count[n]
		if c[0] > 0 {
			failing++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", n, c[0], c[1], c[2])
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d nodes fail\n\n", failing, len(nodes))
}
