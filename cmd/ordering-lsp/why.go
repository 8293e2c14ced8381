package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// cmdWhy answers "why does A run before B": the shortest chain of
// relationships, each with its words and place, or that nothing but the
// tool's default order (manifest order, auto-order, promise-type order)
// places them.
func cmdWhy(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("why", flag.ContinueOnError)
	fs.SetOutput(stderr)
	settings := analysis.Settings{}
	systemFlags(fs, settings)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 3 {
		fmt.Fprintln(stderr, "usage: ordering-lsp why [options] FILE|DIR A B\n\nA and B are references as `order` and hovers write them: Package[nginx], 'file.managed /etc/x /etc/x', ...")
		fs.PrintDefaults()
		return 2
	}
	res, ws, _, code := analyseOne(fs.Arg(0), settings, false, stderr)
	if res == nil {
		return code
	}
	as, ok := nodesOrHint(res, fs.Arg(1), stderr)
	if !ok {
		return 2
	}
	bs, ok := nodesOrHint(res, fs.Arg(2), stderr)
	if !ok {
		return 2
	}
	cwd, _ := os.Getwd()
	printWhy(stdout, res, ws, cwd, as, bs)
	return 0
}

func nodesOrHint(res *analysis.Result, ref string, stderr io.Writer) ([]*analysis.Node, bool) {
	ns := res.NodesByRef(ref)
	if len(ns) > 0 {
		return ns, true
	}
	fmt.Fprintf(stderr, "ordering-lsp: %s declares nothing called %s", res.System, ref)
	if near := res.NearestRefs(ref, 3); len(near) > 0 {
		fmt.Fprintf(stderr, "; did you mean %s?", strings.Join(near, ", "))
	}
	fmt.Fprintln(stderr)
	return nil, false
}

// printWhy writes the chain, one edge a line:
//
//	Package[nginx] runs before Service[nginx]:
//	  Package[nginx] -> File[/etc/nginx.conf]  require  site.pp:4:14
func printWhy(w io.Writer, res *analysis.Result, ws *source.Workspace, base string, as, bs []*analysis.Node) {
	a, b := as[0].Ref, bs[0].Ref
	why := res.Why(as, bs)
	if why.Path == nil {
		fmt.Fprintf(w, "independent: no relationship orders %s and %s; only %s's default order places them", a, b, res.System)
		if pa, pb := samePlace(res, as, bs); pa != nil {
			fmt.Fprintf(w, " (%s %s, %s %s of %d in %s)", a, analysis.Ordinal(pa.Index+1), b, analysis.Ordinal(pb.Index+1), len(pa.Run.Steps), pa.Run.Name)
		}
		fmt.Fprintln(w)
		return
	}
	first, second := a, b
	if why.Reversed {
		first, second = b, a
	}
	how := "runs before"
	if why.ByCalls {
		how = "runs before (through calls, not an ordering relationship)"
	}
	if why.Reversed {
		fmt.Fprint(w, "the other way round: ")
	}
	fmt.Fprintf(w, "%s %s %s:\n", first, how, second)
	rows := [][3]string{}
	for _, e := range why.Path {
		from, to := shown(e.From), shown(e.To)
		if from == to {
			continue // inside one container (its anchors)
		}
		where := ""
		if !e.At.IsZero() {
			where = analysis.Where(ws, base, e.At)
		}
		reason := e.Reason
		if reason == "" {
			reason = e.Kind.String()
		}
		switch {
		case inside(e.From, e.To):
			rows = append(rows, [3]string{from + " is in " + to, reason, where})
		case inside(e.To, e.From):
			rows = append(rows, [3]string{to + " is in " + from, reason, where})
		default:
			rows = append(rows, [3]string{from + " -> " + to, reason, where})
		}
	}
	wa, wb := 0, 0
	for _, r := range rows {
		wa, wb = max(wa, len(r[0])), max(wb, len(r[1]))
	}
	for _, r := range rows {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-*s  %-*s  %s", wa, r[0], wb, r[1], r[2]), " "))
	}
}

// shown names a node as users wrote it: an anchor by its container.
func shown(n *analysis.Node) string {
	for n.Hidden && n.Parent != nil {
		n = n.Parent
	}
	return n.Ref
}

// inside reports whether m sits in the container n stands for (n may be
// one of its hidden anchors): the edge is containment, not a relationship.
func inside(m, n *analysis.Node) bool {
	for n.Hidden && n.Parent != nil {
		n = n.Parent
	}
	for p := m.Parent; p != nil; p = p.Parent {
		if p == n {
			return true
		}
	}
	return false
}

// samePlace finds a run that holds both.
func samePlace(res *analysis.Result, as, bs []*analysis.Node) (*analysis.RunPos, *analysis.RunPos) {
	for _, a := range as {
		for _, pa := range res.Positions(a) {
			for _, b := range bs {
				for _, pb := range res.Positions(b) {
					if pa.Run == pb.Run {
						return &pa, &pb
					}
				}
			}
		}
	}
	return nil, nil
}
