package puppet_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestSoleRunSame: a one-shot check of a workspace with a single run
// (its syntax trees let go before the run's graph is built, no shared
// evaluation recorded) gives the diagnostics of the server's analysis,
// which keeps trees and recordings for the next one. Every fixture, and
// a generated manifest with a cycle, a missing target and a duplicate
// declaration found only once its trees are gone.
func TestSoleRunSame(t *testing.T) {
	released, compared := 0, 0
	compare := func(name, dir string) {
		t.Helper()
		sys := puppet.New().(*puppet.System)
		once := diagsOf(sys, dir, true)
		if sys.Released > 0 {
			released++
		}
		kept := diagsOf(puppet.New().(*puppet.System), dir, false)
		if !slices.Equal(once, kept) {
			t.Errorf("%s: one-shot check:\n%q\nserver analysis:\n%q", name, once, kept)
		}
		compared += len(once)
	}
	eachFixtureDir(t, func(p string, ar *txtar.Archive, dir string) { compare(p, dir) })

	dir := t.TempDir()
	text := append(genManifest(500), []byte(`
Class['app::c3'] -> Class['app::c1']
notify { 'late': require => File['/srv/nowhere'] }
notify { 'done7': }
`)...)
	if err := os.WriteFile(filepath.Join(dir, "site.pp"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	sys := puppet.New().(*puppet.System)
	gen := diagsOf(sys, dir, true)
	if sys.Released != 1 || len(gen) < 3 {
		t.Fatalf("generated manifest: %d files released, diagnostics %q", sys.Released, gen)
	}
	compare("generated", dir)
	t.Logf("%d of the workspaces released their trees, %d diagnostics compared", released, compared)
	if released < 10 {
		t.Fatalf("only %d workspaces had a sole run", released)
	}
}

// diagsOf analyses dir as check does (once) or as the server does.
func diagsOf(sys *puppet.System, dir string, once bool) []string {
	ws := source.NewWorkspace()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: []string{dir}, Settings: analysis.Settings{}, Once: once, DiagnosticsOnly: once}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return diagLines(ws, dir, analysis.Analyze(sys, in, files))
}
