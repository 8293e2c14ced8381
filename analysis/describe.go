package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// maxListed caps each list in a hover: a hub resource with 500 dependents
// must still give a readable tooltip.
const maxListed = 12

// Describe explains a node in Markdown: where it runs (the places folded:
// a class evaluated in 53 catalogs is one line per position, not 53
// blocks), then what it must wait for and why, what it runs before, what
// refreshes it, its container, and the system's own facts. Where it runs
// comes first: in VS Code a hover box shows about five list lines, and a
// hub's "Runs before" list (187 lines in operations-puppet's
// profile::base) hid it. where renders a span as `file:line` for the
// reasons. Every list is a paragraph of its own, so a "… and 49 more"
// never runs into the next heading.
func Describe(r *Result, n *Node, where func(source.Span) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", mdEscape(r.Show(n.Ref)))
	if n.Kind != "" {
		fmt.Fprintf(&b, " · %s", n.Kind)
	}
	if n.Parent != nil && !n.Parent.Hidden {
		fmt.Fprintf(&b, " in `%s`", r.Show(n.Parent.Ref))
	}
	b.WriteString("\n\n")

	// A member of a loop does not run: said first, with where the loop is
	// reported (its position below is one the tool never reaches).
	for i := range r.Diags {
		d := &r.Diags[i]
		if !d.Loop() && d.Code != "never-runs" {
			continue
		}
		for _, m := range d.Members {
			if m.Ref == n.Ref && m.Decl == n.Decl {
				what := "Does not run"
				if d.Severity != Error {
					what = "May not run"
				}
				fmt.Fprintf(&b, "**%s**: %s", what, strings.ReplaceAll(mdEscape(d.Message), "\n", " "))
				if where != nil {
					fmt.Fprintf(&b, " (%s)", where(d.At))
				}
				b.WriteString("\n\n")
				break
			}
		}
	}

	positions := r.Positions(n)
	var contents strings.Builder
	holds := len(positions) == 0 && describeContents(&contents, r, n)

	var waits, triggers, refreshedBy, calls, calledBy []string
	rel := r.relations(n, n.Container || holds)
	for _, x := range rel.Waits {
		waits = append(waits, edgeItem(r, x.Node, x.Edge, where))
		if x.Edge.Kind == Refresh {
			refreshedBy = append(refreshedBy, edgeItem(r, x.Node, x.Edge, where))
		}
	}
	for _, x := range rel.Before {
		triggers = append(triggers, edgeItem(r, x.Node, x.Edge, where))
	}
	for _, x := range rel.CalledBy {
		calledBy = append(calledBy, edgeItem(r, x.Node, x.Edge, where))
	}
	for _, x := range rel.Calls {
		calls = append(calls, edgeItem(r, x.Node, x.Edge, where))
	}
	b.WriteString(contents.String())
	if len(positions) == 0 && !n.Container && !holds {
		b.WriteString("Not in any execution order")
		if r.refusedAny() {
			b.WriteString(" (the run is refused: see the errors)")
		}
		b.WriteString(".\n\n")
	}
	describePositions(&b, r, positions)
	section(&b, "Runs after", waits)
	section(&b, "Runs before", triggers)
	section(&b, "Refreshed by", refreshedBy)
	section(&b, "Called by", calledBy)
	section(&b, "Calls", calls)
	if len(n.Facts) > 0 {
		for _, f := range n.Facts {
			fmt.Fprintf(&b, "- %s: %s\n", f.Label, f.Value)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// describePositions folds a node's places in the runs by position: one
// line per distinct position ("Runs **1st** in 53 runs, e.g. `a.pp`:
// 1/242"), the most common first, with the neighbours in the first run
// it names.
func describePositions(b *strings.Builder, r *Result, positions []RunPos) {
	if len(positions) == 0 {
		return
	}
	type group struct {
		index   int
		ps      []RunPos
		refused int
	}
	var groups []*group
	by := map[int]*group{}
	for _, p := range positions {
		g := by[p.Index]
		if g == nil {
			g = &group{index: p.Index}
			by[p.Index] = g
			groups = append(groups, g)
		}
		g.ps = append(g.ps, p)
		if p.Run.Refused {
			g.refused++
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].ps) > len(groups[j].ps) })
	line := func(g *group) string {
		p := g.ps[0]
		sameLen := true
		for _, q := range g.ps[1:] {
			if len(q.Run.Steps) != len(p.Run.Steps) {
				sameLen = false
			}
		}
		var s string
		switch {
		case len(g.ps) == 1:
			s = fmt.Sprintf("**%s of %d** in %s", Ordinal(p.Index+1), len(p.Run.Steps), runName(p.Run))
			if p.Run.Note != "" {
				s += " (" + p.Run.Note + ")"
			}
		case sameLen:
			s = fmt.Sprintf("**%s of %d** in %d runs, e.g. %s", Ordinal(p.Index+1), len(p.Run.Steps), len(g.ps), runName(p.Run))
		default:
			s = fmt.Sprintf("**%s** in %d runs, e.g. %s: %d/%d", Ordinal(p.Index+1), len(g.ps), runName(p.Run), p.Index+1, len(p.Run.Steps))
		}
		if p.Step.Note != "" {
			s += " (" + p.Step.Note + ")"
		}
		switch {
		case g.refused == 1 && len(g.ps) == 1:
			s += " — the real tool would refuse this run"
		case g.refused == len(g.ps):
			s += " — the real tool would refuse these runs"
		case g.refused > 0:
			s += fmt.Sprintf(" — the real tool would refuse %d of these runs", g.refused)
		}
		return s
	}
	if len(groups) == 1 {
		b.WriteString("Runs " + line(groups[0]) + "  \n")
	} else {
		fmt.Fprintf(b, "Runs at %d different places in %d runs:\n\n", len(groups), len(positions))
		for i, g := range groups {
			if i == 4 {
				fmt.Fprintf(b, "- … and %d more places\n", len(groups)-i)
				break
			}
			b.WriteString("- " + line(g) + "\n")
		}
		b.WriteString("\n")
	}
	p := groups[0].ps[0]
	if p.Index > 0 {
		fmt.Fprintf(b, "↑ after `%s`  \n", r.Show(visibleLabel(p.Run.Steps[p.Index-1])))
	}
	if p.Index+1 < len(p.Run.Steps) {
		fmt.Fprintf(b, "↓ before `%s`  \n", r.Show(visibleLabel(p.Run.Steps[p.Index+1])))
	}
	b.WriteString("\n")
}

func (r *Result) refusedAny() bool {
	for _, run := range r.Runs {
		if run.Refused {
			return true
		}
	}
	return false
}

func runName(run *Run) string {
	if run.Name != "" {
		return "`" + run.Name + "`"
	}
	return "the run"
}

func visibleLabel(st Step) string {
	if st.Node != nil && st.Label == "" {
		return st.Node.Ref
	}
	return st.Label
}

// edgeItem names the other end of an edge and why the edge exists. Hidden
// nodes (anchors) are shown by their container, which is what users wrote.
func edgeItem(r *Result, other *Node, e *Edge, where func(source.Span) string) string {
	s := "`" + r.Show(visibleOf(other).Ref) + "`"
	if e.Reason != "" {
		s += " — " + e.Reason
	}
	if !e.At.IsZero() && where != nil {
		s += " (" + where(e.At) + ")"
	}
	return s
}

func section(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	sort.Strings(items)
	items = dedupe(items)
	fmt.Fprintf(b, "%s:\n", title)
	for i, it := range items {
		if i == maxListed {
			fmt.Fprintf(b, "- … and %d more\n", len(items)-i)
			break
		}
		fmt.Fprintf(b, "- %s\n", it)
	}
	b.WriteString("\n") // the list ends here: the next heading is a paragraph of its own
}

func dedupe(ss []string) []string {
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// mdEscape keeps references like `File[/etc/*]` from being read as
// Markdown links or emphasis.
func mdEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "`", "\\`", "<", `\<`)
	return r.Replace(s)
}

// ownAnchor reports whether a is a hidden node standing for one of n's
// containers (Puppet's class begin/end anchors).
func ownAnchor(a, n *Node) bool {
	if !a.Hidden {
		return false
	}
	c := a
	for c != nil && c.Hidden {
		c = c.Parent
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p == c || p == a {
			return true
		}
	}
	return false
}

// describeContents places a container (a class, a defined-type instance,
// a bundle) by what it holds: the span of positions its members take in
// each run. It reports whether it found any.
func describeContents(b *strings.Builder, r *Result, n *Node) bool {
	type span struct {
		run        *Run
		lo, hi, ct int
	}
	var spans []*span
	byRun := map[*Run]*span{}
	for _, m := range r.Graph.Nodes {
		if m.Hidden || m == n || !within(m, n) {
			continue
		}
		for _, p := range r.Positions(m) {
			sp := byRun[p.Run]
			if sp == nil {
				sp = &span{run: p.Run, lo: p.Index, hi: p.Index}
				byRun[p.Run] = sp
				spans = append(spans, sp)
			}
			sp.lo, sp.hi = min(sp.lo, p.Index), max(sp.hi, p.Index)
			sp.ct++
		}
	}
	for i, sp := range spans {
		if i == 4 {
			b.WriteString("\n… and in " + Count(len(spans)-i, "more run", "more runs") + "  \n")
			break
		}
		if sp.lo == sp.hi {
			fmt.Fprintf(b, "Holds 1 step, run **%s of %d** in %s  \n", Ordinal(sp.lo+1), len(sp.run.Steps), runName(sp.run))
		} else {
			fmt.Fprintf(b, "Holds %d steps, run between the **%s and the %s of %d** in %s  \n", sp.ct, Ordinal(sp.lo+1), Ordinal(sp.hi+1), len(sp.run.Steps), runName(sp.run))
		}
	}
	if len(spans) > 0 {
		b.WriteString("\n")
	}
	return len(spans) > 0
}

func within(m, n *Node) bool {
	for p := m.Parent; p != nil; p = p.Parent {
		if p == n {
			return true
		}
	}
	return false
}

// visibleOf maps a hidden node to the nearest container users wrote.
func visibleOf(x *Node) *Node {
	for x.Hidden && x.Parent != nil {
		x = x.Parent
	}
	return x
}

// DescribeEdges explains the relationships made at one place (a chaining
// arrow, a requisite written once for several targets): which side runs
// first and, for a refresh, what a change triggers. Edges the tool adds
// by itself or that order nothing (containment, calls, references) are
// left out; "" when none is left.
func DescribeEdges(r *Result, edges []*Edge) string {
	var lines []string
	for _, e := range edges {
		if e.From == nil || e.To == nil || e.Reason == "contains" {
			continue
		}
		from, to := "`"+r.Show(visibleOf(e.From).Ref)+"`", "`"+r.Show(visibleOf(e.To).Ref)+"`"
		var l string
		switch e.Kind {
		case Order:
			l = from + " runs before " + to
		case Refresh:
			l = from + " runs before " + to + ", and a change to " + from + " triggers " + to
		default:
			continue
		}
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	reason := edges[0].Reason
	title := "**Relationship**"
	if reason != "" {
		title += " (`" + reason + "`)"
	}
	if len(lines) > maxListed {
		lines = append(lines[:maxListed], fmt.Sprintf("… and %d more", len(lines)-maxListed))
	}
	return title + "\n\n- " + strings.Join(lines, "\n- ")
}

// Show is how hovers, symbols and the outline write ref (Result.ShowRef).
func (r *Result) Show(ref string) string {
	if r == nil || r.ShowRef == nil {
		return ref
	}
	return r.ShowRef(ref)
}
