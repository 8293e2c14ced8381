package analysistest

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// CheckInertEdits holds a system's early cutoff for values
// (analysis.Result.Follow) to a fresh analysis: in every fixture (a txtar
// archive, or one file alone), analysed as the language server sees a
// workspace (no entry file), it types random text into string literals
// and takes characters out of them; whenever the last result follows the
// edit without an analysis (analysis.Result.FollowEdit), what it gives
// must read exactly as a fresh analysis of the new text: every node,
// fact, edge, step, diagnostic and link, spans and words alike. edits is
// the number of edits tried per fixture. It fails when no edit was
// judged inert (nothing was checked).
func CheckInertEdits(t *testing.T, newSystem func() analysis.System, paths []string, edits int) {
	t.Helper()
	var moved, refused int
	for _, p := range paths {
		out := serverFixture(t, newSystem(), p)
		if !inertEdits(t, newSystem, out, filepath.Base(p), edits, &moved, &refused) {
			return
		}
	}
	t.Logf("%d edits of literal values judged inert, moved and equal to a fresh analysis; %d left to a new analysis", moved, refused)
	if moved == 0 {
		t.Fatalf("no edit was judged inert: nothing checked")
	}
}

// CheckInertEditsIn is CheckInertEdits on a real workspace, analysed as
// the language server does.
func CheckInertEditsIn(t *testing.T, newSystem func() analysis.System, root string, edits int) {
	t.Helper()
	ws := source.NewWorkspace(root)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	sys := newSystem()
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	out := &Outcome{Result: analysis.Analyze(sys, in, files), Dir: root, WS: ws, Input: in}
	var moved, refused int
	inertEdits(t, newSystem, out, filepath.Base(root), edits, &moved, &refused)
	t.Logf("%d edits of literal values judged inert, moved and equal to a fresh analysis; %d left to a new analysis", moved, refused)
	if moved == 0 {
		t.Fatalf("no edit was judged inert: nothing checked")
	}
}

// bareValue is a word or number written after "=>" (group 1).
var bareValue = regexp.MustCompile(`=>[ \t]*([A-Za-z0-9_.-]+)`)

// typed is what the edits type into a literal: words a value takes, and
// what ends or interpolates a string (which the judgement must refuse
// or get right).
var typed = []string{"x", "0644", "-1", "/opt", "_a", " ", ".", "present", "'", "\"", "$x", "${y}", "\\", "\n", "'; notify { 'z': }"}

// inertEdits tries edits random edits of string literals of out's files;
// false after the first moved result that differs from a fresh analysis.
func inertEdits(t *testing.T, newSystem func() analysis.System, out *Outcome, name string, edits int, moved, refused *int) bool {
	t.Helper()
	if out.Result.Follow == nil {
		return true // the system judged no edit of this workspace
	}
	tk, ok := newSystem().(analysis.Tokenizer)
	if !ok {
		t.Fatalf("%s has no tokens to find string literals by", newSystem().Name())
	}
	rnd := seeded(name)
	type lit struct {
		f          *source.File
		start, end int
		bare       bool // a word or number: edits may touch its ends
	}
	var lits, values []lit // values: literals after "=>", an attribute's or a key's
	for _, f := range resultFiles(out) {
		for _, tok := range analysis.FlattenTokens(tk.Tokens(f), f.Text) {
			if tok.Kind == analysis.TokString && tok.End-tok.Start >= 2 {
				lits = append(lits, lit{f: f, start: tok.Start, end: tok.End})
				if bytes.HasSuffix(bytes.TrimRight(f.Text[:tok.Start], " \t"), []byte("=>")) {
					values = append(values, lit{f: f, start: tok.Start, end: tok.End})
				}
			}
		}
		for _, m := range bareValue.FindAllSubmatchIndex(f.Text, -1) {
			values = append(values, lit{f: f, start: m[2], end: m[3], bare: true})
		}
	}
	lits = append(lits, values...)
	if len(lits) == 0 {
		return true
	}
	open := openedBy(newSystem, out)
	for i := 0; i < edits; i++ {
		l := lits[rnd.Intn(len(lits))]
		if len(values) > 0 && rnd.Intn(4) > 0 {
			l = values[rnd.Intn(len(values))]
		}
		old := l.f
		// inside a string, or just before its closing quote; anywhere in
		// a word; last: the last byte a deletion may take
		at, last := l.start+rnd.Intn(l.end-l.start+1), l.end
		if !l.bare {
			at, last = l.start+1+rnd.Intn(l.end-l.start-1), l.end-1
		}
		var text []byte
		if rnd.Intn(4) == 0 && at < last {
			text = splice(old.Text, at, at+1, nil)
		} else {
			text = splice(old.Text, at, at, []byte(typed[rnd.Intn(len(typed))]))
		}
		cur := source.NewFile(old.URI, old.Path, text)
		m := analysis.NewShift(old.URI, old.Text, cur.Text)
		base, bws := open(old)
		ws := bws.Fork(cur)
		got, ok := base.FollowEdit(old, cur, m, linesOf(ws))
		if !ok {
			*refused++
			continue
		}
		*moved++
		if g, w := Dump(got), Dump(freshAnalysis(newSystem, out, ws)); g != w {
			t.Errorf("%s: %s edited at byte %d (%q -> %q), judged inert: the moved result is not a fresh analysis's\n%s",
				name, old.Path, m.Pre, old.Text[m.Pre:m.OldEnd], cur.Text[m.Pre:m.CurEnd], FirstDifference(w, g, "fresh", "moved"))
			return false
		}
	}
	return true
}
