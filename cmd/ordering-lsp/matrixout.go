package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// maxMatrixRows bounds the runs x nodes table: a control repository has
// hundreds of runs, and the failing ones are what a reader looks for.
const maxMatrixRows = 60

// writeMatrix prints check's summary of a workspace analysed once per
// node: per node, how many runs it has and how many fail (the real tool
// would refuse them); then the runs that fail on some node, one column
// per node.
func writeMatrix(w io.Writer, m *analysis.Matrix) {
	fmt.Fprintf(w, "\n%s: %d runs x %d nodes\n", m.System, len(m.Runs), len(m.Nodes))
	nameW, platW := len("node"), len("platform")
	for _, n := range m.Nodes {
		nameW = max(nameW, len(n.Name))
		platW = max(platW, len(n.Detail))
	}
	fmt.Fprintf(w, "  %-3s %-*s  %-*s  %5s  %7s\n", "#", nameW, "node", platW, "platform", "runs", "failing")
	totalFail := 0
	for i, n := range m.Nodes {
		runs, fail := 0, 0
		for _, r := range m.Runs {
			if m.Present[r][n.Name] {
				runs++
				if m.Refused[r][n.Name] {
					fail++
				}
			}
		}
		totalFail += fail
		fmt.Fprintf(w, "  %-3d %-*s  %-*s  %5d  %7d\n", i+1, nameW, n.Name, platW, n.Detail, runs, fail)
	}
	var failing []string
	for _, r := range m.Runs {
		if len(m.Refused[r]) > 0 {
			failing = append(failing, r)
		}
	}
	if len(failing) == 0 {
		fmt.Fprintf(w, "every run compiles on every node\n")
		return
	}
	fmt.Fprintf(w, "runs failing on some node (x fails, . compiles, - not a run there): %d of %d runs, %d run x node failures\n", len(failing), len(m.Runs), totalFail)
	cwd, _ := os.Getwd()
	show := map[string]string{}
	runW := len("run")
	for _, r := range failing {
		show[r] = r
		if filepath.IsAbs(r) { // a file's run on the command line
			show[r] = analysis.Rel(cwd, r)
		}
		runW = max(runW, len(show[r]))
	}
	var head strings.Builder
	for i := range m.Nodes {
		fmt.Fprintf(&head, " %3d", i+1)
	}
	fmt.Fprintf(w, "  %-*s %s\n", runW, "run", head.String())
	for i, r := range failing {
		if i == maxMatrixRows {
			fmt.Fprintf(w, "  ... and %d more\n", len(failing)-i)
			break
		}
		var row strings.Builder
		for _, n := range m.Nodes {
			c := "."
			switch {
			case !m.Present[r][n.Name]:
				c = "-"
			case m.Refused[r][n.Name]:
				c = "x"
			}
			fmt.Fprintf(&row, " %3s", c)
		}
		fmt.Fprintf(w, "  %-*s %s\n", runW, show[r], row.String())
	}
}
