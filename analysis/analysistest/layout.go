package analysistest

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// CheckLayoutEdits holds a Movable system to its promise: for random
// comment and blank lines typed into or taken out of each fixture's
// input files (those its tokens call layout only; those the system's own
// judgement refuses count as refused, as the language server decides:
// analysis.LayoutOnlyBy), the last result moved through the edit
// (analysis.ShiftResult) must read exactly as a fresh analysis of the new
// text: every node, fact, edge, step, diagnostic and link, spans and words
// alike. edits is the number of edits tried per fixture.
func CheckLayoutEdits(t *testing.T, newSystem func() analysis.System, dir string, edits int) {
	t.Helper()
	if _, ok := newSystem().(analysis.Movable); !ok {
		t.Fatalf("%s does not implement analysis.Movable", newSystem().Name())
	}
	tk, ok := newSystem().(analysis.Tokenizer)
	if !ok {
		t.Fatalf("%s has no tokens to tell layout from code", newSystem().Name())
	}
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txtar") {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	comments := commentLines(t, tk, paths)
	var moved, refused int
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out := Load(t, newSystem(), ar)
		if !layoutEdits(t, newSystem, out, filepath.Base(p), comments, edits, &moved, &refused) {
			return
		}
	}
	t.Logf("%d layout edits moved and equal to a fresh analysis, %d left to a new analysis (something lay in the edit, or the system refused it)", moved, refused)
	if moved == 0 {
		t.Fatalf("no layout edit was tried: nothing checked")
	}
}

// CheckLayoutEditsIn is CheckLayoutEdits on a real workspace, analysed as
// the language server does (no entry file): edits edits of its files,
// with comment lines found in them.
func CheckLayoutEditsIn(t *testing.T, newSystem func() analysis.System, root string, edits int) {
	t.Helper()
	tk := newSystem().(analysis.Tokenizer)
	ws := source.NewWorkspace(root)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	sys := newSystem()
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	var comments [][]byte
	for _, f := range files {
		comments = append(comments, fileComments(tk, f)...)
		if len(comments) >= 20 {
			break
		}
	}
	out := &Outcome{Result: analysis.Analyze(sys, in, files), Dir: root, WS: ws, Input: in}
	var moved, refused int
	layoutEdits(t, newSystem, out, filepath.Base(root), comments, edits, &moved, &refused)
	t.Logf("%d layout edits moved and equal to a fresh analysis, %d left to a new analysis", moved, refused)
	if moved == 0 {
		t.Fatalf("no layout edit was tried: nothing checked")
	}
}

// layoutEdits tries edits random layout edits of out's files; false after
// the first moved result that differs from a fresh analysis.
func layoutEdits(t *testing.T, newSystem func() analysis.System, out *Outcome, name string, comments [][]byte, edits int, moved, refused *int) bool {
	t.Helper()
	tk := newSystem().(analysis.Tokenizer)
	rnd := seeded(name)
	files := resultFiles(out)
	if len(files) == 0 {
		return true
	}
	if w := unwritten(out.Result); w != "" {
		t.Errorf("%s: a line mark left in words a user sees (not written out: analysis.WriteLines): %q", name, w)
		return false
	}
	tokens := func(f *source.File) []analysis.Token { return analysis.FlattenTokens(tk.Tokens(f), f.Text) }
	// edits layout edits, of up to 5 times as many tries (a line taken
	// out is often code: the tokens decide)
	open := openedBy(newSystem, out)
	for tried, tries := 0, 0; tried < edits && tries < 5*edits; tries++ {
		old := files[rnd.Intn(len(files))]
		text := layoutEdit(rnd, old.Text, comments)
		if text == nil {
			continue
		}
		cur := source.NewFile(old.URI, old.Path, text)
		m := analysis.NewShift(old.URI, old.Text, cur.Text)
		if !analysis.LayoutOnly(tokens, old, cur, m) {
			continue
		}
		tried++
		if !analysis.LayoutOnlyBy(newSystem(), tokens, old, cur, m) {
			*refused++ // the system's own judgement (analysis.LayoutJudge)
			continue
		}
		base, bws := open(old)
		ws := bws.Fork(cur)
		got, ok := analysis.ShiftResult(base, m, linesOf(ws))
		if !ok {
			*refused++
			continue
		}
		*moved++
		if g, w := Dump(got), Dump(freshAnalysis(newSystem, out, ws)); g != w {
			t.Errorf("%s: %s edited at byte %d (%q -> %q): the moved result is not a fresh analysis's\n%s",
				name, old.Path, m.Pre, old.Text[m.Pre:m.OldEnd], cur.Text[m.Pre:m.CurEnd], FirstDifference(w, g, "fresh", "moved"))
			return false
		}
	}
	return true
}

// unwritten returns the first words of r a user sees that still hold a
// line mark (analysis.LineMark: U+FFF9), "" when none does: marks belong
// in templates only.
func unwritten(r *analysis.Result) string {
	var words []string
	for _, n := range r.Graph.Nodes {
		words = append(words, n.Ref)
		for _, f := range n.Facts {
			words = append(words, f.Label, f.Value, f.Condition)
		}
	}
	for _, e := range r.Graph.Edges {
		words = append(words, e.Reason)
	}
	for _, run := range r.Runs {
		for _, st := range run.Steps {
			words = append(words, st.Label, st.Note)
		}
	}
	for _, d := range r.Diags {
		words = append(words, d.Message)
		for _, rel := range d.Related {
			words = append(words, rel.Message)
		}
	}
	for _, w := range words {
		if strings.Contains(w, "\uFFF9") {
			return w
		}
	}
	return ""
}

// commentLines finds whole-line comments in the system's fixtures, as
// its tokens say, to type into other files.
func commentLines(t *testing.T, tk analysis.Tokenizer, paths []string) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasPrefix(f.Name, "want/") {
				continue
			}
			for _, c := range fileComments(tk, source.NewFile("file:///"+f.Name, "/"+f.Name, f.Data)) {
				if !seen[string(c)] {
					seen[string(c)] = true
					out = append(out, c)
				}
			}
			if len(out) >= 20 {
				return out
			}
		}
	}
	return out
}

// fileComments lists the comments of f that are lines of their own.
func fileComments(tk analysis.Tokenizer, f *source.File) [][]byte {
	var out [][]byte
	for _, tok := range analysis.FlattenTokens(tk.Tokens(f), f.Text) {
		c := f.Text[tok.Start:tok.End]
		if tok.Kind != analysis.TokComment || bytes.ContainsAny(c, "\n\r") {
			continue
		}
		ls := bytes.LastIndexByte(f.Text[:tok.Start], '\n') + 1
		if len(bytes.TrimSpace(f.Text[ls:tok.Start])) > 0 {
			continue // after code: not a line of its own
		}
		out = append(out, append([]byte(nil), c...))
	}
	return out
}

// layoutEdit types a blank or comment line in at a line start, or takes
// a blank or comment-looking line out; nil when it found none to take.
func layoutEdit(rnd *rand.Rand, text []byte, comments [][]byte) []byte {
	var starts []int
	starts = append(starts, 0)
	for i, c := range text {
		if c == '\n' && i+1 <= len(text) {
			starts = append(starts, i+1)
		}
	}
	at := starts[rnd.Intn(len(starts))]
	switch k := rnd.Intn(4); {
	case k == 0 || len(comments) == 0 && k < 3:
		return splice(text, at, at, []byte("\n"))
	case k < 3:
		indent := []byte(strings.Repeat(" ", rnd.Intn(5)))
		c := comments[rnd.Intn(len(comments))]
		return splice(text, at, at, append(append(indent, c...), '\n'))
	default: // take a line out: any line, the tokens decide
		end := bytes.IndexByte(text[at:], '\n')
		if end < 0 {
			return nil
		}
		return splice(text, at, at+end+1, nil)
	}
}

func splice(text []byte, a, b int, with []byte) []byte {
	out := make([]byte, 0, len(text)-(b-a)+len(with))
	out = append(out, text[:a]...)
	out = append(out, with...)
	return append(out, text[b:]...)
}

// Dump writes everything a result says, in order, spans as byte offsets:
// two results that dump alike answer every request alike.
func Dump(r *analysis.Result) string {
	var b strings.Builder
	sp := func(s source.Span) string { return fmt.Sprintf("%s@%d-%d", s.URI, s.Start, s.End) }
	id := map[*analysis.Node]int{}
	for i, n := range r.Graph.Nodes {
		id[n] = i
	}
	ref := func(n *analysis.Node) string {
		if n == nil {
			return "-"
		}
		if i, ok := id[n]; ok {
			return fmt.Sprint("#", i)
		}
		return fmt.Sprintf("(%s %s %s)", n.Kind, n.Ref, sp(n.Decl))
	}
	edge := map[*analysis.Edge]int{}
	for i, e := range r.Graph.Edges {
		edge[e] = i
	}
	runOf := map[*analysis.Run]int{}
	for i := range r.Runs {
		runOf[&r.Runs[i]] = i
	}
	fmt.Fprintf(&b, "system %s partial %v files %q nodes %q\n", r.System, r.Partial, r.Files, r.Nodes)
	for i, n := range r.Graph.Nodes {
		fmt.Fprintf(&b, "node #%d %s %q decl %s full %s parent %s container %v hidden %v\n", i, n.Kind, n.Ref, sp(n.Decl), sp(n.Full), ref(n.Parent), n.Container, n.Hidden)
		for _, f := range n.Facts {
			fmt.Fprintf(&b, "  fact %q %q %q %q\n", f.Label, f.Value, f.Condition, f.Template)
		}
		// what the result's indexes answer (a moved result inherits them)
		for _, p := range r.Positions(n) {
			run, ok := runOf[p.Run]
			fmt.Fprintf(&b, "  runs %d (%v) step %d %v\n", run, ok, p.Index, p.Step == &p.Run.Steps[p.Index] && p.Step.Node == n)
		}
		rel := r.Relations(n)
		for _, side := range [][]analysis.Neighbour{rel.Waits, rel.Before, rel.CalledBy, rel.Calls} {
			b.WriteString("  relations")
			for _, nb := range side {
				e, ok := edge[nb.Edge]
				fmt.Fprintf(&b, " %s/%d(%v)", ref(nb.Node), e, ok)
			}
			b.WriteString("\n")
		}
	}
	for _, e := range r.Graph.Edges {
		fmt.Fprintf(&b, "edge %s -> %s %s %q at %s\n", ref(e.From), ref(e.To), e.Kind, e.Reason, sp(e.At))
	}
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "run %q entry %s refused %v alone %v\n", run.Name, run.Entry, run.Refused, run.Alone)
		for _, st := range run.Steps {
			fmt.Fprintf(&b, "  step %s %q %q %d\n", ref(st.Node), st.Label, st.Note, st.Seq)
		}
	}
	for _, d := range r.Diags {
		fmt.Fprintf(&b, "diag %s %v %s %q %q source %s never %v unresolved %v nodes %q\n", sp(d.At), d.Severity, d.Code, d.Message, d.Template, d.Source, d.NeverRuns, d.Unresolved, d.Nodes)
		for _, rel := range d.Related {
			fmt.Fprintf(&b, "  related %s %q\n", sp(rel.At), rel.Message)
		}
		for _, n := range d.Members {
			fmt.Fprintf(&b, "  member %s\n", ref(n))
		}
	}
	for _, l := range r.Links {
		fmt.Fprintf(&b, "link %s", sp(l.At))
		for _, n := range l.Nodes {
			fmt.Fprintf(&b, " %s", ref(n))
		}
		for _, f := range l.Files {
			fmt.Fprintf(&b, " file %s", sp(f))
		}
		if l.Title != "" || len(l.Notes) > 0 {
			fmt.Fprintf(&b, " title %q notes %q", l.Title, l.Notes)
		}
		if l.Gathers {
			b.WriteString(" gathers")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FirstDifference shows the first line where two texts part (dumps of
// two results), naming each side.
func FirstDifference(want, got, wantName, gotName string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\n  %s: %s\n  %s: %s", i+1, wantName, a, gotName, b)
		}
	}
	return "(no difference)"
}

// seeded is a random source of its own for each fixture or file name: a
// check's edits are the same on every run, whatever the order.
func seeded(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewSource(int64(h.Sum64())))
}
