package puppet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestNodeRunsOfOneName: `node default` written in two files of
// manifests/ (nyudlts/puppet-control-repo has fifteen) gives two runs,
// each named after its place; a second analysis of the unchanged
// workspace restores each one's own snapshot (with one name for both,
// each restored the other's: other orders).
func TestNodeRunsOfOneName(t *testing.T) {
	ws, _ := patchWorkspace(t, map[string]string{
		"manifests/a.pp": "node default {\n  notify { 'a1': }\n  notify { 'a2': }\n}\n",
		"manifests/b.pp": "\n\nnode default {\n  package { 'b1': }\n}\nnode 'web' {\n  notify { 'w': }\n}\n",
	})
	long := puppet.New()
	first := dump(analyzeIn(ws, long, analysis.Settings{}))
	for _, want := range []string{`run "manifests/ (node default at manifests/a.pp:1)"`, `run "manifests/ (node default at manifests/b.pp:3)"`, `run "manifests/ (node web)"`} {
		if !strings.Contains(first, want) {
			t.Errorf("no %s in\n%s", want, first)
		}
	}
	if again := dump(analyzeIn(ws, long, analysis.Settings{})); again != first {
		t.Errorf("the restored result differs from the first\n%s", lineDiff(first, again))
	}
	if fresh := dump(analyzeIn(ws, puppet.New(), analysis.Settings{})); fresh != first {
		t.Errorf("a fresh result differs\n%s", lineDiff(fresh, first))
	}
}

// TestRestoredEqualsBuiltCorpus: for each repository under
// $ORDERING_RESTORE_CORPUS (a folder of them), a second analysis of the
// unchanged workspace, every run restored from its snapshot, gives the
// first one's result (how the run-name collision above was found).
func TestRestoredEqualsBuiltCorpus(t *testing.T) {
	root := os.Getenv("ORDERING_RESTORE_CORPUS")
	if root == "" {
		t.Skip("set ORDERING_RESTORE_CORPUS to a folder of repositories")
	}
	dirs, _ := os.ReadDir(root)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		ws := source.NewWorkspace(filepath.Join(root, d.Name()))
		long := puppet.New()
		first := dump(analyzeIn(ws, long, analysis.Settings{}))
		again := dump(analyzeIn(ws, long, analysis.Settings{}))
		restored := long.(*puppet.System).Restored
		if again != first {
			t.Errorf("%s: the restored result differs\n%s", d.Name(), lineDiff(first, again))
			continue
		}
		t.Logf("%s: %d runs restored, the same result", d.Name(), restored)
	}
}
