package cfengine

import (
	"fmt"
	"strings"
	"testing"
)

// dumpFile renders every block, span and value of a parse (nil and empty
// lists alike) for comparisons.
func dumpFile(f *File) string {
	var sb strings.Builder
	var rv func(r *Rval)
	rv = func(r *Rval) {
		if r == nil {
			sb.WriteString("nil")
			return
		}
		fmt.Fprintf(&sb, "(%d %q %v %v", r.Kind, r.Value, r.Span, r.NameSpan)
		for _, it := range r.Items {
			sb.WriteString(" ")
			rv(it)
		}
		sb.WriteString(")")
	}
	cons := func(c *Constraint) {
		fmt.Fprintf(&sb, "    %v %q %v %v %v ", c.Lval, c.Context, c.ContextSpan, c.VarContext, c.Span)
		rv(c.Rval)
		sb.WriteString("\n")
	}
	for _, b := range f.Blocks {
		fmt.Fprintf(&sb, "%s %v %v %v %q %q %v %v\n", b.Kind, b.Type, b.Name, b.Params, b.Namespace, b.EvalOrder, b.Span, b.Open)
		for _, s := range b.Sections {
			fmt.Fprintf(&sb, "  %v %v\n", s.Type, s.Span)
			for _, p := range s.Promises {
				fmt.Fprintf(&sb, "   %q %v %q %v %v %v ", p.Promiser, p.PromiserSpan, p.Context, p.ContextSpan, p.VarContext, p.Span)
				rv(p.Promisee)
				sb.WriteString("\n")
				for _, c := range p.Constraints {
					cons(c)
				}
			}
		}
		for _, c := range b.Attrs {
			cons(c)
		}
	}
	for _, b := range f.Broken {
		fmt.Fprintf(&sb, "broken %s %v %v %q %v\n", b.Kind, b.Type, b.Name, b.Namespace, b.Span)
	}
	for _, e := range f.Errors {
		fmt.Fprintf(&sb, "error %v %s\n", e.Span, e.Message)
	}
	fmt.Fprintf(&sb, "ignored %v\n", f.Ignored)
	return sb.String()
}

// A cached parse is the parse: after edits that move, change, add and
// remove blocks, a warm parser gives exactly what a fresh one gives.
func TestCacheAfterEdits(t *testing.T) {
	base := string(genPolicy(20)) + "body file control\n{\n  namespace => \"ns\";\n}\nbundle agent after { reports: \"x\"; }\nbundle agent broken { reports: \"x\" }\n"
	edits := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return "# a comment moves every block\n" + s },
		func(s string) string { return strings.Replace(s, "\"done\";", "\"done!\";", 1) },
		func(s string) string { return strings.Replace(s, "bundle agent b3(x)", "bundle agent b3(x, y)", 1) },
		func(s string) string { return strings.Replace(s, "bundle agent b5(x)\n", "", 1) },
		func(s string) string { return strings.Replace(s, "namespace => \"ns\";", "", 1) },
		func(s string) string { return "@if minimum_version(3.18)\n" + s + "@endif\n" },
		func(s string) string { return s + s },
	}
	p := NewParser()
	for i, e := range edits {
		text := []byte(e(base))
		for round := 0; round < 2; round++ {
			got, want := dumpFile(p.Parse(text)), dumpFile(Parse(text))
			if got != want {
				gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
				for k := range min(len(gl), len(wl)) {
					if gl[k] != wl[k] {
						t.Logf("first difference, line %d:\n got  %s\n want %s", k, gl[k], wl[k])
						break
					}
				}
				t.Fatalf("edit %d, round %d: cached parse differs from a fresh one", i, round)
			}
		}
	}
}
