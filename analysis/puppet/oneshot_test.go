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
	return diagsAt(sys, dir, dir, once)
}

// TestSoleRunDroppedBodies: a sole run lets each class body go once it
// is evaluated (oneshot.go). A file the run autoloads brings a run of a
// class nothing declares after it, which includes a class whose body
// the sole run dropped: that body is parsed again, and the problems
// are the server's.
func TestSoleRunDroppedBodies(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"site.pp": "class base { notify { 'b': } file { '/x': require => Notify['b'] } }\n" +
			"class base::two { notify { 'c': before => Notify['b'] } }\n" +
			"include base\ninclude base::two\ninclude extra\n",
		"modules/extra/manifests/init.pp": "class extra { notify { 'e': } }\n" +
			"class extra::more { include base\n  notify { 'm': require => Notify['nowhere'] }\n  Notify['c'] -> Notify['m'] }\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := filepath.Join(dir, "site.pp")
	sys := puppet.New().(*puppet.System)
	once := diagsAt(sys, site, dir, true)
	if sys.Reparsed == 0 {
		t.Fatalf("no dropped class body was needed again (diagnostics %q)", once)
	}
	if kept := diagsAt(puppet.New().(*puppet.System), site, dir, false); !slices.Equal(once, kept) || len(once) == 0 {
		t.Errorf("one-shot check:\n%q\nserver analysis:\n%q", once, kept)
	}
}

// diagsAt analyses path (a file or folder) as check does (once) or as the
// server does.
func diagsAt(sys *puppet.System, path, dir string, once bool) []string {
	ws := source.NewWorkspace()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: []string{path}, Settings: analysis.Settings{}, Once: once, DiagnosticsOnly: once}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return diagLines(ws, dir, analysis.Analyze(sys, in, files))
}
