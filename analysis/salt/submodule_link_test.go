package salt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// TestLinkIntoSubmodule: a package the file root links into a formula
// kept as a git submodule (sjlu/salt-states: `apache ->
// .apache-formula/apache`, as saltstack-formulas suggest for a local
// tree) is there once the submodule is checked out: while it is not,
// the include is information naming the submodule and the command that
// checks it out, not a warning that it may be another root's. Checked
// out, the package is read like any other.
func TestLinkIntoSubmodule(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitmodules", "[submodule \"apache-formula\"]\n\tpath = .apache-formula\n\turl = https://github.com/saltstack-formulas/apache-formula.git\n")
	write("top.sls", "base:\n  '*':\n    - apache\n    - web\n")
	write("web.sls", "site:\n  file.directory:\n    - name: /srv/site\n")
	if err := os.MkdirAll(filepath.Join(dir, ".apache-formula"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".apache-formula/apache", filepath.Join(dir, "apache")); err != nil {
		t.Fatal(err)
	}
	got := analyseDir(t, dir, dir, analysis.Settings{})
	want := "top.sls:3:7: info: No matching sls found for 'apache' in env 'base' (nothing named 'apache' in ./: apache links into .apache-formula, a git submodule that is not checked out: `git submodule update --init .apache-formula` puts it there)"
	if !strings.Contains(got, want+"\n") {
		t.Errorf("not checked out: want\n%s\ngot\n%s", want, got)
	}
	write(".apache-formula/apache/init.sls", "apache:\n  pkg.installed:\n    - name: apache2\n")
	got = analyseDir(t, dir, dir, analysis.Settings{})
	if strings.Contains(got, "No matching sls found for 'apache'") || !strings.Contains(got, "pkg.installed apache") {
		t.Errorf("checked out: the package should be read\n%s", got)
	}
}
