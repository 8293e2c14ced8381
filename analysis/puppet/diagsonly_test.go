package puppet_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestDiagnosticsOnlySame: what `check` asks for (diagnostics only) gives
// the diagnostics of a complete analysis, on every fixture's workspace
// analysed as check does (the whole folder, no entry file), and on the
// workspace of $ORDERING_CORPUS repositories when set.
func TestDiagnosticsOnlySame(t *testing.T) {
	compared, fixtures := 0, 0
	eachFixtureDir(t, func(p string, ar *txtar.Archive, dir string) {
		full, only := checkDiags(dir, false), checkDiags(dir, true)
		if !slices.Equal(full, only) {
			t.Errorf("%s: diagnostics only:\n%q\ncomplete analysis:\n%q", p, only, full)
		}
		compared += len(full)
		fixtures++
	})
	t.Logf("%d fixtures, %d diagnostics", fixtures, compared)
	if compared == 0 {
		t.Fatal("no diagnostics compared")
	}
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		return
	}
	repos, _ := os.ReadDir(root)
	for _, r := range repos {
		if !r.IsDir() {
			continue
		}
		dir, _ := filepath.EvalSymlinks(filepath.Join(root, r.Name()))
		full, only := checkDiags(dir, false), checkDiags(dir, true)
		if !slices.Equal(full, only) {
			t.Errorf("%s: diagnostics only gives %d, a complete analysis %d", r.Name(), len(only), len(full))
		}
		t.Logf("%s: %d diagnostics", r.Name(), len(full))
	}
}

func checkDiags(dir string, only bool) []string {
	ws := source.NewWorkspace()
	sys := puppet.New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: []string{dir}, Settings: analysis.Settings{}, Once: true, DiagnosticsOnly: only}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return diagLines(ws, dir, analysis.Analyze(sys, in, files))
}

// TestOrderOnlySame: what `order` asks for (problems and steps, no hover
// facts or links) gives the problems and the runs of a complete analysis
// of the same entry file, for every manifest of every fixture.
func TestOrderOnlySame(t *testing.T) {
	entries, steps := 0, 0
	eachFixtureDir(t, func(p string, ar *txtar.Archive, dir string) {
		for _, f := range ar.Files {
			if filepath.Ext(f.Name) != ".pp" {
				continue
			}
			entry := filepath.Join(dir, f.Name)
			full, only := orderOutput(dir, entry, false), orderOutput(dir, entry, true)
			if !slices.Equal(full, only) {
				t.Errorf("%s, %s: order only:\n%q\ncomplete analysis:\n%q", p, f.Name, only, full)
			}
			entries++
			steps += len(full)
		}
	})
	t.Logf("%d entry files, %d lines", entries, steps)
	if steps == 0 {
		t.Fatal("nothing compared")
	}
}

// orderOutput is what `order` reads of an analysis of entry: the
// problems, and each run's name, refusal and steps.
func orderOutput(dir, entry string, only bool) []string {
	ws := source.NewWorkspace()
	sys := puppet.New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: []string{entry}, Entry: source.PathToURI(entry), Settings: analysis.Settings{}, Once: true, OrderOnly: only}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	res := analysis.Analyze(sys, in, files)
	out := diagLines(ws, dir, res)
	for _, r := range res.Runs {
		out = append(out, "run "+r.Name+" "+r.Entry+" "+strconv.FormatBool(r.Refused))
		for _, s := range r.Steps {
			out = append(out, s.Label)
		}
	}
	return out
}

// diagLines are res's diagnostics as check prints them, sorted, each with
// its related places.
func diagLines(ws *source.Workspace, dir string, res *analysis.Result) []string {
	ds := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(ds)
	var out []string
	for _, d := range ds {
		line := analysis.CheckLine(ws, dir, d)
		for _, r := range d.Related {
			line += "\n  " + r.At.URI + " " + r.Message
		}
		out = append(out, line)
	}
	return out
}

// eachFixtureDir calls f with every fixture, its inputs written to a
// folder of their own.
func eachFixtureDir(t *testing.T, f func(path string, ar *txtar.Archive, dir string)) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		analysistest.WriteInputs(t, dir, ar)
		f(p, ar, dir)
	}
}
