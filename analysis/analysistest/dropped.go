package analysistest

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// CheckDroppedEdits holds a system's way of following edits of text its
// parser drops (analysis.Result.Follow) to a fresh analysis, as a user
// types a statement: in every fixture (a txtar archive, or one file
// alone), analysed as the language server sees a workspace, it inserts
// one of fragments (a statement begun, ending in a newline) at a line
// start, then types steps characters into it one at a time. After each
// keystroke the previous result (a fresh analysis's, or the one it
// followed to) follows the edit when the system says it can, and what it
// gives must read exactly as a fresh analysis of the new text; then as
// many spaces are typed at random places of the file. edits is
// the number of statements begun per fixture. It fails when no keystroke
// was followed (nothing was checked).
func CheckDroppedEdits(t *testing.T, newSystem func() analysis.System, paths []string, fragments []string, edits, steps int) {
	t.Helper()
	var followed, refused int
	for _, p := range paths {
		out := serverFixture(t, newSystem(), p)
		if out.Result.Follow == nil {
			continue
		}
		rnd := seeded(p)
		for e := 0; e < edits; e++ {
			if !typeStatement(t, newSystem, out, filepath.Base(p), rnd, fragments, steps, &followed, &refused) {
				return
			}
		}
	}
	t.Logf("%d keystrokes followed without an analysis and equal to a fresh analysis; %d left to a new analysis", followed, refused)
	if followed == 0 {
		t.Fatalf("no keystroke was followed: nothing checked")
	}
}

// typedChars are the keystrokes typed into a statement begun.
var typedChars = []string{"a", "x", "'", " ", "=", ">", ",", "{", "}", "$", "[", "]"}

// typeStatement begins a statement in one of out's files and types into
// it; false after the first followed result that differs from a fresh
// analysis.
func typeStatement(t *testing.T, newSystem func() analysis.System, out *Outcome, name string, rnd *rand.Rand, fragments []string, steps int, followed, refused *int) bool {
	t.Helper()
	files := resultFiles(out)
	if len(files) == 0 {
		return true
	}
	old := files[rnd.Intn(len(files))]
	starts := []int{0}
	for i, c := range old.Text {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	at := starts[rnd.Intn(len(starts))]
	frag := fragments[rnd.Intn(len(fragments))]
	cursor := at + len(frag) - 1 // before the fragment's newline
	prev, ws := opened(newSystem, out, old)
	oldText := old.Text
	// the statement begun, steps keystrokes into it, then as many spaces
	// typed anywhere in the file while it is unfinished (between words the
	// tree is the same, but words a result quotes from the text may not be)
	for s := 0; s <= 2*steps; s++ {
		var text []byte
		switch {
		case s == 0:
			text = splice(oldText, at, at, []byte(frag))
		case s <= steps:
			c := typedChars[rnd.Intn(len(typedChars))]
			text = splice(oldText, cursor, cursor, []byte(c))
			cursor += len(c)
		default:
			i := rnd.Intn(len(oldText) + 1)
			text = splice(oldText, i, i, []byte(" "))
			if i <= cursor {
				cursor++
			}
		}
		before := source.NewFile(old.URI, old.Path, oldText)
		cur := source.NewFile(old.URI, old.Path, text)
		next := ws.Fork(cur)
		m := analysis.NewShift(old.URI, oldText, text)
		fresh := freshAnalysis(newSystem, out, next)
		got, ok := prev.FollowEdit(before, cur, m, linesOf(next))
		if ok {
			*followed++
			if g, w := Dump(got), Dump(fresh); g != w {
				t.Errorf("%s: %s: %q typed at byte %d (the line now reads %q): the followed result is not a fresh analysis's\n%s",
					name, old.Path, text[m.Pre:m.CurEnd], m.Pre, lineAt(text, m.Pre), FirstDifference(w, g, "fresh", "followed"))
				return false
			}
			prev = got
		} else {
			*refused++
			prev = fresh
		}
		oldText, ws = text, next
	}
	return true
}

// lineAt is the line of text holding offset i.
func lineAt(text []byte, i int) string {
	a := strings.LastIndexByte(string(text[:i]), '\n') + 1
	b := strings.IndexByte(string(text[i:]), '\n')
	if b < 0 {
		return string(text[a:])
	}
	return string(text[a : i+b])
}
