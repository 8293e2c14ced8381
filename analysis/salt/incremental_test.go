package salt

import (
	"context"
	"fmt"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestIncrementalSameAnswers: after each edit of a series, a system with
// warm caches (replayed and patched runs) gives exactly the Result a
// fresh system gives: runs and step labels, diagnostics, edges, links and
// facts, in the same order. The edits mix what the patch path takes
// (renamed states, moved offsets, new comments, with and without a
// diagnostic in the file) with what it must refuse (a name some
// requisite names, a changed requisite, a new state, a syntax error).
func TestIncrementalSameAnswers(t *testing.T) {
	root, middle := genHighstate(t, 8, 30)
	orig, err := os.ReadFile(middle)
	if err != nil {
		t.Fatal(err)
	}
	base := string(orig)
	broken := "\nbroken_requisite:\n  test.nop:\n    - require:\n      - test: nothere\n"
	edits := []struct {
		name, text string
		patch      bool // the patch path must take it
	}{
		{"rename", strings.Replace(base, "- name: n", "- name: e1", 1), true},
		{"rename again", strings.Replace(base, "- name: n", "- name: e12", 1), true},
		{"comment above", "# a comment\n" + strings.Replace(base, "- name: n", "- name: e12", 1), true},
		{"two renames", "# a comment\n" + strings.Replace(base, "- name: n", "- name: x", 2), true},
		{"name a requisite names", strings.Replace(base, "- name: n", "- name: hub", 1), false},
		{"name back", strings.Replace(base, "- name: n", "- name: e2", 1), false},
		{"missing requisite", base + broken, false},
		{"shift with a diagnostic", "\n\n" + base + broken, true},
		{"rename with a diagnostic", "\n\n" + strings.Replace(base, "- name: n", "- name: y", 1) + broken, true},
		{"rename to the missing target", "\n\n" + strings.Replace(base, "- name: n", "- name: nothere", 1) + broken, false},
		{"new state", base + "\nextra:\n  test.nop\n", false},
		{"syntax error", base + "\nbad: [\n", false},
		{"back to the start", base, false},
		{"rename after all that", strings.Replace(base, "- name: n", "- name: z", 1), true},
	}
	top := filepath.Join(root, "top.sls")
	for _, entry := range []string{"", top} {
		ws := source.NewWorkspace(root)
		warm := New().(*System)
		analyzeRoot(warm, ws, entry)
		for _, e := range edits {
			ws.SetOverlay(source.NewFile(source.PathToURI(middle), middle, []byte(e.text)))
			before := warm.patched
			gotRes := analyzeRoot(warm, ws, entry)
			patched := warm.patched > before
			if e.patch && !patched {
				t.Errorf("entry %q, %s: not patched", entry, e.name)
			}
			wantRes := analyzeRoot(New(), ws, entry)
			if got, want := exact(gotRes, ws, root), exact(wantRes, ws, root); got != want {
				t.Fatalf("entry %q, %s (patched %v): differs\n%s", entry, e.name, patched, analysistest.FirstDifference(want, got, "want", "got"))
			}
		}
	}
}

// exact renders a Result in its own order (no sorting): runs, steps,
// diagnostics with related spans, nodes with facts, edges, links.
func exact(res *analysis.Result, ws *source.Workspace, base string) string {
	var b strings.Builder
	for _, r := range res.Runs {
		fmt.Fprintf(&b, "run %s %s refused=%v\n", r.Name, r.Entry, r.Refused)
		for _, s := range r.Steps {
			fmt.Fprintf(&b, "  step %s|%s|%d\n", s.Label, s.Note, s.Node.Index)
		}
	}
	for _, d := range res.Diags {
		fmt.Fprintf(&b, "diag %s %v %s %s\n", analysis.Where(ws, base, d.At), d.Severity, d.Code, d.Message)
		for _, r := range d.Related {
			fmt.Fprintf(&b, "  related %s %s\n", analysis.Where(ws, base, r.At), r.Message)
		}
	}
	for _, n := range res.Graph.Nodes {
		fmt.Fprintf(&b, "node %d %s %s %s %s\n", n.Index, n.Kind, n.Ref, analysis.Where(ws, base, n.Decl), analysis.Where(ws, base, n.Full))
		for _, f := range n.Facts {
			fmt.Fprintf(&b, "  fact %s: %s\n", f.Label, f.Value)
		}
	}
	for _, e := range res.Graph.Edges {
		fmt.Fprintf(&b, "edge %d -> %d %s %s %s\n", e.From.Index, e.To.Index, e.Kind, e.Reason, analysis.Where(ws, base, e.At))
	}
	for _, l := range res.Links {
		fmt.Fprintf(&b, "link %s", analysis.Where(ws, base, l.At))
		for _, n := range l.Nodes {
			fmt.Fprintf(&b, " %d", n.Index)
		}
		for _, f := range l.Files {
			fmt.Fprintf(&b, " %s", f.URI)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// countdown is a context canceled after its Err has been asked n times:
// it cancels an analysis at each of its checks in turn.
type countdown struct {
	context.Context
	n *atomic.Int64
}

func (c countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCanceledAnalysis: an analysis canceled at any of its checks returns
// (without a panic), and leaves nothing half-made in the caches: the next
// analysis, after an edit, says what a fresh system says.
func TestCanceledAnalysis(t *testing.T) {
	root, middle := genHighstate(t, 4, 10)
	orig, _ := os.ReadFile(middle)
	top := filepath.Join(root, "top.sls")
	for _, entry := range []string{"", top} {
		checks := 0
		for k := 0; ; k++ {
			ws := source.NewWorkspace(root)
			sys := New()
			var n atomic.Int64
			n.Store(int64(k))
			in := analysis.Input{Ctx: countdown{context.Background(), &n}, Workspace: ws}
			if entry != "" {
				in.Entry = source.PathToURI(entry)
			}
			files := analysis.Files([]analysis.System{sys}, analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: in.Entry})[sys]
			analysis.Analyze(sys, in, files)
			if n.Load() >= 0 {
				checks = k
				break // never canceled: every check passed
			}
			for i, text := range []string{string(orig), strings.Replace(string(orig), "- name: n", "- name: c", 1)} {
				ws.SetOverlay(source.NewFile(source.PathToURI(middle), middle, []byte(text)))
				got := exact(analyzeRoot(sys, ws, entry), ws, root)
				want := exact(analyzeRoot(New(), ws, entry), ws, root)
				if got != want {
					t.Fatalf("entry %q: canceled at check %d, analysis %d afterwards differs from a fresh one", entry, k, i)
				}
			}
		}
		t.Logf("entry %q: canceled at each of %d checks", entry, checks)
		if checks < 5 {
			t.Errorf("entry %q: only %d cancellation checks", entry, checks)
		}
	}
}

// TestIncrementalOracleFiles: the oracle cases (cycles, missing
// requisites, extends, prereq, listen, conflicting IDs...) edited one file
// at a time, each edit kept or refused by the patch path, give what a
// fresh system gives.
func TestIncrementalOracleFiles(t *testing.T) {
	dir := t.TempDir()
	ents, _ := os.ReadDir(filepath.Join("testdata", "oracle"))
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sls") {
			b, _ := os.ReadFile(filepath.Join("testdata", "oracle", e.Name()))
			os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
			names = append(names, e.Name())
		}
	}
	for _, set := range []analysis.Settings{nil, {"salt.engine": "master"}, {"salt.stateAutoOrder": "false"}} {
		ws := source.NewWorkspace(dir)
		analyze := func(sys analysis.System) *analysis.Result {
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: set}
			return analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
		}
		warm := New().(*System)
		analyze(warm)
		patched := warm.patched
		for _, n := range names {
			path := filepath.Join(dir, n)
			orig, _ := os.ReadFile(path)
			edits := []string{
				"# moved down\n" + string(orig),
				"# moved down\n\n" + strings.ReplaceAll(string(orig), "- name: ", "- name: renamed_"),
				strings.ReplaceAll(string(orig), "  - ", "  -  "),
				string(orig),
			}
			for i, text := range edits {
				ws.SetOverlay(source.NewFile(source.PathToURI(path), path, []byte(text)))
				got := exact(analyze(warm), ws, dir)
				want := exact(analyze(New()), ws, dir)
				if got != want {
					t.Fatalf("%v: %s, edit %d: warm analysis differs from a fresh one", set, n, i)
				}
			}
		}
		if warm.patched == patched {
			t.Errorf("%v: no run was patched", set)
		}
		t.Logf("%v: %d runs patched", set, warm.patched-patched)
	}
}
