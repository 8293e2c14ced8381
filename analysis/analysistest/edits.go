package analysistest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What the checks of edits a result follows without an analysis share
// (layout.go, inert.go, dropped.go).

// serverFixture loads the fixture at p (a txtar archive, or one file
// alone) as the language server sees a workspace: no entry file.
func serverFixture(t *testing.T, sys analysis.System, p string) *Outcome {
	t.Helper()
	var ar *txtar.Archive
	if strings.HasSuffix(p, ".txtar") {
		var err error
		if ar, err = txtar.ParseFile(p); err != nil {
			t.Fatal(err)
		}
	} else {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ar = &txtar.Archive{Files: []txtar.File{{Name: filepath.Base(p), Data: data}}}
	}
	ar.Comment = append(append([]byte(nil), ar.Comment...), "\nentry: -\n"...)
	return Load(t, sys, ar)
}

// resultFiles are the files out's result analysed, as its workspace has
// them.
func resultFiles(out *Outcome) []*source.File {
	var files []*source.File
	for _, u := range out.Result.Files {
		if f := analysis.FileOf(out.WS, u); f != nil {
			files = append(files, f)
		}
	}
	return files
}

// linesOf answers the 1-based line of an offset of a document of ws (0
// when unknown), as ShiftResult asks.
func linesOf(ws *source.Workspace) func(uri string, off int) int {
	return func(uri string, off int) int {
		if f := analysis.FileOf(ws, uri); f != nil {
			l, _ := f.Line1Col1(off)
			return l
		}
		return 0
	}
}

// freshAnalysis is a new system's analysis of ws, with out's settings.
func freshAnalysis(newSystem func() analysis.System, out *Outcome, ws *source.Workspace) *analysis.Result {
	in := out.Input
	in.Ctx, in.Workspace = context.Background(), ws
	sys := newSystem()
	return analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
}

// typist makes edits to one file of a fixture, each on the text the last
// left, and holds the previous result's follow of each (when the system
// gives one) to a fresh analysis of the new text (attrs.go, assigns.go).
type typist struct {
	t         *testing.T
	newSystem func() analysis.System
	out       *Outcome
	name      string       // the fixture's, for messages
	old       *source.File // the file edited, as the fixture has it
	prev      *analysis.Result
	ws        *source.Workspace
	text      []byte // the file's text now
	failed    bool   // a followed result was not a fresh analysis's
	// clean: the file had no syntax error before and after the last edit
	clean bool
}

func newTypist(t *testing.T, newSystem func() analysis.System, out *Outcome, name string, f *source.File) *typist {
	prev, ws := opened(newSystem, out, f)
	return &typist{t: t, newSystem: newSystem, out: out, name: name, old: f, prev: prev, ws: ws, text: f.Text}
}

// openedBy is opened once per file of one fixture.
func openedBy(newSystem func() analysis.System, out *Outcome) func(f *source.File) (*analysis.Result, *source.Workspace) {
	type res struct {
		r  *analysis.Result
		ws *source.Workspace
	}
	seen := map[string]res{}
	return func(f *source.File) (*analysis.Result, *source.Workspace) {
		if x, ok := seen[f.URI]; ok {
			return x.r, x.ws
		}
		r, ws := opened(newSystem, out, f)
		seen[f.URI] = res{r, ws}
		return r, ws
	}
}

// opened is the fixture's analysis with f open in the editor, as the
// server has it before the first keystroke: a system may answer more
// about open documents (Puppet's file and Hiera links), and a result
// followed through an edit keeps what it had.
func opened(newSystem func() analysis.System, out *Outcome, f *source.File) (*analysis.Result, *source.Workspace) {
	ws := out.WS.Fork(f)
	return freshAnalysis(newSystem, out, ws), ws
}

// edit replaces the text [at, to) with with; it says whether the result
// followed the edit.
func (ty *typist) edit(at, to int, with string) bool {
	t, old := ty.t, ty.old
	t.Helper()
	text := splice(ty.text, at, to, []byte(with))
	before := source.NewFile(old.URI, old.Path, ty.text)
	cur := source.NewFile(old.URI, old.Path, text)
	next := ty.ws.Fork(cur)
	m := analysis.NewShift(old.URI, ty.text, text)
	fresh := freshAnalysis(ty.newSystem, ty.out, next)
	got, ok := ty.prev.FollowEdit(before, cur, m, linesOf(next))
	ty.clean = noSyntaxErrors(ty.prev, old.URI) && noSyntaxErrors(fresh, old.URI)
	if ok {
		if g, w := Dump(got), Dump(fresh); g != w {
			t.Errorf("%s: %s: %q -> %q at byte %d (the line now reads %q): the followed result is not a fresh analysis's\n%s",
				ty.name, old.Path, ty.text[m.Pre:m.OldEnd], text[m.Pre:m.CurEnd], m.Pre, lineAt(text, m.Pre), FirstDifference(w, g, "fresh", "followed"))
			ty.failed = true
		}
		ty.prev = got
	} else {
		ty.prev = fresh
	}
	ty.text, ty.ws = text, next
	return ok
}

// key types with at *cursor, moving the cursor past it, and counts the
// keystroke as followed or refused.
func (ty *typist) key(cursor *int, with string, followed, refused *int) bool {
	ok := ty.edit(*cursor, *cursor, with)
	*cursor += len(with)
	if ok {
		*followed++
	} else {
		*refused++
	}
	return ok
}
