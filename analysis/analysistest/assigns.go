package analysistest

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// AssignLine is an assignment CheckAssignEdits types: `$Name = Value`.
// Never: one no result may follow (its value reads something, or Puppet
// sets the variable itself).
type AssignLine struct {
	Name, Value string
	Never       bool
}

// CheckAssignEdits holds a system's way of following an assignment
// added to a body, typed over or taken out (analysis.Result.Follow) to
// a fresh analysis, as a user types it: in every fixture, analysed as the
// language server sees a workspace, it finds lines that begin a statement
// inside a body (indented `include`, a resource, an assignment) or end
// it (a closing brace) and, before one of them, adds one of lines whole and then takes it out again;
// or types one as an editor that pairs quotes sends it (the indentation
// and a line break, `$`, the name and ` = ` a character at a time, a
// quote with its pair, the value inside them a character at a time); or
// types a character into the quoted value of an assignment the fixture
// has. After each edit the previous result follows it when the system
// says it can, and what it gives must read exactly as a fresh analysis of
// the new text; a line marked Never must not be followed. It fails when
// no line added whole, none taken whole, or no keystroke of a paired
// quote was followed (nothing of this was checked). A path given more than
// once gets other edits each time.
func CheckAssignEdits(t *testing.T, newSystem func() analysis.System, paths []string, lines []AssignLine, edits int) {
	t.Helper()
	var st assignStats
	for i, p := range paths {
		out := serverFixture(t, newSystem(), p)
		if out.Result.Follow == nil {
			continue
		}
		rnd := seeded(fmt.Sprintf("%s assignments %d", p, i)) // (a path given twice: other edits)
		for e := 0; e < edits; e++ {
			if !typeAssign(t, newSystem, out, filepath.Base(p), rnd, lines, &st) {
				return
			}
		}
	}
	t.Logf("assignments: %d added whole followed, %d refused (%d of them to be refused); %d taken whole followed, %d refused; "+
		"typed: %d keystrokes followed (%d of them the paired quotes that make the assignment parse), %d refused; %d values typed over followed, %d refused; %d parameters among the lines added",
		st.added, st.addRefused, st.mustRefuse, st.deleted, st.delRefused, st.typed, st.quotes, st.typedRefused, st.over, st.overRefused, st.params)
	if st.added == 0 || st.deleted == 0 || st.quotes == 0 || st.over == 0 {
		t.Fatalf("no assignment added whole, taken whole, made by its quotes or typed over was followed: nothing checked")
	}
}

type assignStats struct {
	added, addRefused, mustRefuse int
	deleted, delRefused           int
	typed, quotes, typedRefused   int
	over, overRefused             int
	params                        int // lines added to parameter lists
}

var (
	// a line that begins a statement inside a body (1: its indentation)
	stmtLineRE = regexp.MustCompile(`(?m)^([ \t]+)(?:include|contain|notify|file|package|service|exec|user|group|\$[a-z_][a-z0-9_]*[ \t]*=)[ \t{(']`)
	// a body's closing brace on a line of its own (1: its indentation):
	// `$x = ` typed before a statement is the assignment of that
	// statement's value, before a brace a line the parser drops
	closeLineRE = regexp.MustCompile(`(?m)^([ \t]*)\}[ \t]*$`)
	// a parameter on a line of its own (1: its indentation)
	paramLineRE = regexp.MustCompile(`(?m)^([ \t]+)(?:[A-Z][A-Za-z0-9_:\[\], ]*[ \t]+)?\$[a-z_][a-z0-9_]*[^\n]*,[ \t]*$`)
	// an assignment's quoted value, inside its quotes (1)
	assignValueRE = regexp.MustCompile(`(?m)^[ \t]+\$[a-z_][a-z0-9_]*[ \t]*=[ \t]*'([^'\n]*)'[ \t]*$`)
)

// typeAssign makes one edit of assignments in one of out's files; false
// after the first followed result that differs from a fresh analysis.
func typeAssign(t *testing.T, newSystem func() analysis.System, out *Outcome, name string, rnd *rand.Rand, lines []AssignLine, st *assignStats) bool {
	t.Helper()
	type site struct {
		f      *source.File
		at     int
		indent string
	}
	var sites, values, params []site
	for _, f := range resultFiles(out) {
		for _, m := range stmtLineRE.FindAllSubmatchIndex(f.Text, -1) {
			sites = append(sites, site{f: f, at: m[0], indent: string(f.Text[m[2]:m[3]])})
		}
		for _, m := range closeLineRE.FindAllSubmatchIndex(f.Text, -1) {
			sites = append(sites, site{f: f, at: m[0], indent: string(f.Text[m[2]:m[3]]) + "  "})
		}
		for _, m := range paramLineRE.FindAllSubmatchIndex(f.Text, -1) {
			params = append(params, site{f: f, at: m[0], indent: string(f.Text[m[2]:m[3]])})
		}
		for _, m := range assignValueRE.FindAllSubmatchIndex(f.Text, -1) {
			values = append(values, site{f: f, at: m[2] + rnd.Intn(m[3]-m[2]+1)})
		}
	}
	if len(sites) == 0 {
		return true
	}
	s := sites[rnd.Intn(len(sites))]
	k := rnd.Intn(8)
	if k == 3 {
		if len(values) == 0 {
			return true
		}
		s = values[rnd.Intn(len(values))]
	}
	if k == 2 && len(params) > 0 { // a parameter instead (followassign.go: the same judgement)
		s = params[rnd.Intn(len(params))]
	}
	old := s.f
	ty := newTypist(t, newSystem, out, name, old)
	edit := ty.edit
	l := lines[rnd.Intn(len(lines))]
	line := s.indent + "$" + l.Name + " = " + l.Value + "\n"
	if k == 2 && len(params) > 0 {
		line = s.indent + "$" + l.Name + " = " + l.Value + ",\n"
		if !l.Never && l.Name != "" {
			st.params++
		}
	}
	switch {
	case k < 3: // a line added whole, then taken out again
		if edit(s.at, s.at, line) {
			st.added++
			if l.Never && ty.clean {
				t.Errorf("%s: %s: %q added at byte %d was followed: it must be analysed", name, old.Path, line, s.at)
				return false
			}
		} else {
			st.addRefused++
			if l.Never && ty.clean {
				st.mustRefuse++
			}
		}
		if q := l.Value[len(l.Value)-1:]; q == "'" || q == `"` { // its value typed over
			at := s.at + len(line) - 2 // (before the closing quote)
			if edit(at, at, "x") {
				st.over++
			} else {
				st.overRefused++
			}
			line = line[:len(line)-2] + "x" + line[len(line)-2:]
		}
		if edit(s.at, s.at+len(line), "") {
			st.deleted++
			if l.Never && ty.clean {
				t.Errorf("%s: %s: %q taken out was followed: it must be analysed", name, old.Path, line)
				return false
			}
		} else {
			st.delRefused++
		}
	case k == 3: // a character typed into a value
		if edit(s.at, s.at, "x") {
			st.over++
		} else {
			st.overRefused++
		}
	default: // typed as an editor sends it
		cursor := s.at
		key := func(with string) bool { return ty.key(&cursor, with, &st.typed, &st.typedRefused) }
		key(s.indent + "\n")
		cursor-- // (before the line break)
		for _, c := range "$" + l.Name + " = " {
			key(string(c))
		}
		v := l.Value
		if q := v[:1]; (q == "'" || q == `"`) && len(v) >= 2 && v[len(v)-1:] == q {
			if key(q + q) { // the editor pairs the quote
				st.quotes++
			}
			cursor--
			for _, c := range v[1 : len(v)-1] {
				key(string(c))
			}
		} else {
			for _, c := range v {
				key(string(c))
			}
		}
	}
	return !ty.failed
}
