package analysistest

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// AttrLine is an attribute line CheckAttrEdits types: `Name => Value`.
// Never: a line no result may follow when it is added or taken whole (a
// rule reads the attribute, or its value reads something).
type AttrLine struct {
	Name, Value string
	Never       bool
}

// CheckAttrEdits holds a system's way of following an attribute line
// added to or taken from a resource (analysis.Result.Follow) to a fresh
// analysis, as a user types it: in every fixture (a txtar archive, or
// one file alone), analysed as the language server sees a workspace, it
// finds attribute lines ending in a comma (`  name => value,`) and, after
// one of them, adds one of lines whole; or types one as an editor that
// pairs quotes sends it (Enter at the end of the line, the name and
// ` => ` a character at a time, a quote with its pair, the value inside
// them a character at a time, then the comma after the closing quote);
// or deletes an attribute line whole; or adds a copy of one after it (a
// duplicate, which Puppet refuses). After each edit the previous result
// follows it when the system says it can, and what it gives must read
// exactly as a fresh analysis of the new text. A line marked Never, or a
// duplicate, added whole, and a line taken whole whose name is one of
// read, must not be followed. edits is the number of edits per fixture.
// It fails when no line added whole, none taken whole, or no keystroke of
// a paired quote was followed (nothing of this was checked).
func CheckAttrEdits(t *testing.T, newSystem func() analysis.System, paths []string, lines []AttrLine, read []string, edits int) {
	t.Helper()
	var st attrStats
	for _, p := range paths {
		out := serverFixture(t, newSystem(), p)
		if out.Result.Follow == nil {
			continue
		}
		rnd := seeded(p)
		for e := 0; e < edits; e++ {
			if !typeAttr(t, newSystem, out, filepath.Base(p), rnd, lines, read, &st) {
				return
			}
		}
	}
	t.Logf("attribute lines: %d added whole followed, %d refused (%d of them to be refused); %d taken whole followed, %d refused (%d to be refused); "+
		"typed: %d keystrokes followed (%d of them the paired quotes that make the attribute parse), %d refused",
		st.added, st.addRefused, st.mustRefuse, st.deleted, st.delRefused, st.mustRefuseDel, st.typed, st.quotes, st.typedRefused)
	if st.added == 0 || st.deleted == 0 || st.quotes == 0 {
		t.Fatalf("no attribute line added whole, taken whole, or made by its quotes was followed: nothing checked")
	}
}

type attrStats struct {
	added, addRefused, mustRefuse      int
	deleted, delRefused, mustRefuseDel int
	typed, quotes, typedRefused        int
}

// Where attribute lines are typed: after a quoted title's colon
// (`notify { 'a': }`), or at the end of an attribute line (1: its
// indentation, 2: its comma, if any).
var (
	titleColonRE = regexp.MustCompile(`'[^'\n]*':`)
	attrLineRE   = regexp.MustCompile(`(?m)^([ \t]*)[a-z_][a-z0-9_]*[ \t]*=>[^\n]*?(,?)[ \t]*$`)
	// an attribute written with its comma (1: its name), which is taken
	// or written twice
	attrRE = regexp.MustCompile(`\b([a-z_][a-z0-9_]*)[ \t]*=>[ \t]*` + attrValue + `[ \t]*,[ \t]*`)
	// the last attribute of a body, with the comma before it (1), if any:
	// name (2), value (3)
	lastAttrRE = regexp.MustCompile(`(,?)[ \t]*\b([a-z_][a-z0-9_]*)[ \t]*=>[ \t]*(` + attrValue + `)[ \t]*\}`)
)

// attrValue is a value an attribute taken may have.
const attrValue = `(?:'[^'\n]*'|"[^"\n]*"|[A-Za-z0-9_:/.$-]+|[A-Z][a-z:]*\['[^'\n]*'\])`

// attrSite is a place to add an attribute: at, with what goes before the
// attribute (open) and after it (end).
type attrSite struct {
	f         *source.File
	at        int
	open, end string
}

// typeAttr makes one edit of attribute lines in one of out's files; false
// after the first followed result that differs from a fresh analysis.
func typeAttr(t *testing.T, newSystem func() analysis.System, out *Outcome, name string, rnd *rand.Rand, lines []AttrLine, read []string, st *attrStats) bool {
	t.Helper()
	var sites []attrSite
	type written struct {
		f          *source.File
		start, end int
		name       string
	}
	var attrs []written
	for _, f := range resultFiles(out) {
		for _, m := range titleColonRE.FindAllIndex(f.Text, -1) {
			if commented(f.Text, m[0]) {
				continue
			}
			sites = append(sites, attrSite{f: f, at: m[1], open: " ", end: ","})
		}
		for _, m := range attrLineRE.FindAllSubmatchIndex(f.Text, -1) {
			indent := string(f.Text[m[2]:m[3]])
			if commented(f.Text, m[1]) {
				continue
			}
			if m[4] < m[5] {
				sites = append(sites, attrSite{f: f, at: m[1], open: "\n" + indent, end: ","})
			} else {
				sites = append(sites, attrSite{f: f, at: m[1], open: ",\n" + indent})
			}
		}
		for _, m := range attrRE.FindAllSubmatchIndex(f.Text, -1) {
			a, b := m[0], m[1]
			if commented(f.Text, b) {
				continue
			}
			// a line of its own: the whole line
			ls := strings.LastIndexByte(string(f.Text[:a]), '\n') + 1
			if strings.TrimSpace(string(f.Text[ls:a])) == "" && b < len(f.Text) && f.Text[b] == '\n' {
				a, b = ls, b+1
			}
			attrs = append(attrs, written{f: f, start: a, end: b, name: string(f.Text[m[2]:m[3]])})
		}
		for _, m := range lastAttrRE.FindAllSubmatchIndex(f.Text, -1) {
			if !commented(f.Text, m[1]) {
				attrs = append(attrs, written{f: f, start: m[0], end: m[7], name: string(f.Text[m[4]:m[5]])})
			}
		}
	}
	if len(sites) == 0 {
		return true
	}
	s := sites[rnd.Intn(len(sites))]
	k := rnd.Intn(8)
	var w written
	if k >= 2 && k < 5 {
		if len(attrs) == 0 {
			return true
		}
		w = attrs[rnd.Intn(len(attrs))]
		s.f = w.f
	}
	old := s.f
	ty := newTypist(t, newSystem, out, name, old)
	edit := ty.edit
	l := lines[rnd.Intn(len(lines))]
	switch {
	case k < 2: // a line added whole
		if edit(s.at, s.at, s.open+l.Name+" => "+l.Value+s.end) {
			st.added++
			if l.Never && ty.clean {
				t.Errorf("%s: %s: %s => %s added at byte %d was followed: it must be analysed", name, old.Path, l.Name, l.Value, s.at)
				return false
			}
		} else {
			st.addRefused++
			if l.Never && ty.clean {
				st.mustRefuse++
			}
		}
	case k < 4: // a line taken whole
		isRead := false
		for _, r := range read {
			isRead = isRead || r == w.name
		}
		if edit(w.start, w.end, "") {
			st.deleted++
			if isRead && ty.clean {
				t.Errorf("%s: %s: %q taken was followed: it must be analysed", name, old.Path, old.Text[w.start:w.end])
				return false
			}
		} else {
			st.delRefused++
			if isRead && ty.clean {
				st.mustRefuseDel++
			}
		}
	case k < 5: // a copy after it: a duplicate attribute
		if edit(w.end, w.end, string(old.Text[w.start:w.end])) {
			if ty.clean {
				t.Errorf("%s: %s: %q written twice was followed: Puppet refuses a duplicate attribute", name, old.Path, old.Text[w.start:w.end])
				return false
			}
		} else {
			st.addRefused++
			if ty.clean {
				st.mustRefuse++
			}
		}
	default: // typed as an editor sends it
		cursor := s.at
		key := func(with string) bool { return ty.key(&cursor, with, &st.typed, &st.typedRefused) }
		if strings.HasPrefix(s.open, ",") {
			key(",")
		}
		key(strings.TrimPrefix(s.open, ","))
		for _, c := range l.Name + " => " {
			key(string(c))
		}
		v := l.Value
		if q := v[:1]; (q == "'" || q == `"`) && strings.HasSuffix(v, q) && len(v) >= 2 {
			if key(q + q) { // the editor pairs the quote
				st.quotes++
			}
			cursor--
			for _, c := range v[1 : len(v)-1] {
				key(string(c))
			}
			cursor++
		} else {
			for _, c := range v {
				key(string(c))
			}
		}
		if s.end != "" {
			key(s.end)
		}
		if want := l.Name + " => " + l.Value + s.end; !strings.HasSuffix(string(ty.text[:cursor]), want) {
			panic(fmt.Sprintf("typed %q, the text before the cursor reads %q", want, lineAt(ty.text, cursor-1)))
		}
	}
	return !ty.failed
}

// noSyntaxErrors reports whether r reports no syntax error in the file
// uri.
func noSyntaxErrors(r *analysis.Result, uri string) bool {
	for _, d := range r.Diags {
		if d.Code == "syntax" && d.At.URI == uri {
			return false
		}
	}
	return true
}

// commented reports whether a # comes before offset i on its line: a
// comment, perhaps (or a string holding one: that place is left alone).
func commented(text []byte, i int) bool {
	ls := strings.LastIndexByte(string(text[:i]), '\n') + 1
	return strings.IndexByte(string(text[ls:i]), '#') >= 0
}
