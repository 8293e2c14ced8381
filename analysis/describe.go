package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// maxListed caps each list in a hover: a hub resource with 500 dependents
// must still give a readable tooltip.
const maxListed = 12

// Describe explains a node in Markdown: where it runs, what comes directly
// before and after it, what it must wait for, what it triggers, who
// refreshes it, its container, and the system's own facts. where renders a
// span as `file:line` for the reasons.
func Describe(r *Result, n *Node, where func(source.Span) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", mdEscape(n.Ref))
	if n.Kind != "" {
		fmt.Fprintf(&b, " · %s", n.Kind)
	}
	if n.Parent != nil && !n.Parent.Hidden {
		fmt.Fprintf(&b, " in `%s`", n.Parent.Ref)
	}
	b.WriteString("\n\n")

	positions := r.Positions(n)
	if len(positions) == 0 && !n.Container {
		b.WriteString("Not in any execution order")
		if r.refusedAny() {
			b.WriteString(" (the run is refused: see the errors)")
		}
		b.WriteString(".\n\n")
	}
	for i, p := range positions {
		if i == 4 {
			fmt.Fprintf(&b, "- … and %d more places\n", len(positions)-i)
			break
		}
		fmt.Fprintf(&b, "Runs **%s of %d** in %s", Ordinal(p.Index+1), len(p.Run.Steps), runName(p.Run))
		if p.Step.Note != "" {
			fmt.Fprintf(&b, " (%s)", p.Step.Note)
		}
		if p.Run.Refused {
			b.WriteString(" — the real tool would refuse this run")
		}
		b.WriteString("  \n")
		if p.Index > 0 {
			fmt.Fprintf(&b, "↑ after `%s`  \n", visibleLabel(p.Run.Steps[p.Index-1]))
		}
		if p.Index+1 < len(p.Run.Steps) {
			fmt.Fprintf(&b, "↓ before `%s`  \n", visibleLabel(p.Run.Steps[p.Index+1]))
		}
		b.WriteString("\n")
	}

	var waits, triggers, refreshedBy, calls, calledBy []string
	for _, e := range r.Graph.Edges {
		switch {
		case e.To == n && e.From != n:
			item := edgeItem(e.From, e, where)
			switch e.Kind {
			case Refresh:
				refreshedBy = append(refreshedBy, item)
				waits = append(waits, item)
			case Order, Auto:
				waits = append(waits, item)
			case Call:
				calledBy = append(calledBy, item)
			}
		case e.From == n && e.To != n:
			item := edgeItem(e.To, e, where)
			switch e.Kind {
			case Order, Auto, Refresh:
				triggers = append(triggers, item)
			case Call:
				calls = append(calls, item)
			}
		}
	}
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
func edgeItem(other *Node, e *Edge, where func(source.Span) string) string {
	name := other.Ref
	for other.Hidden && other.Parent != nil {
		other = other.Parent
		name = other.Ref
	}
	s := "`" + name + "`"
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
	b.WriteString("\n")
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
