package puppet

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestInstallJobs: one job per Puppetfile whose modules are not all in
// their folders (moduledir, install_path), filling only the missing ones;
// r10k when on PATH, else g10k (its cache in the user's cache folder),
// else a job that says how to get one; none when everything is there.
func TestInstallJobs(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Puppetfile", "moduledir 'vendor'\nmod 'puppetlabs/stdlib', '9.6.0'\nmod 'foo', git: 'https://example.invalid/foo.git'\nmod 'bar', :git => 'x', :install_path => 'site'\n")
	write("vendor/stdlib/manifests/init.pp", "class stdlib {}\n")
	write("site-modules/role/manifests/web.pp", "class role::web { include foo }\n")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	onPath := map[string]bool{}
	defer func(f func(string) (string, error)) { lookPath = f }(lookPath)
	lookPath = func(name string) (string, error) {
		if onPath[name] {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	}
	jobs := func() []analysis.InstallJob {
		return (&System{}).InstallJobs(&analysis.Request{Workspace: source.NewWorkspace(root)})
	}
	pf := filepath.Join(root, "Puppetfile")
	fills := filepath.Join(root, "vendor", "foo") + " " + filepath.Join(root, "site", "bar")

	onPath["r10k"], onPath["g10k"] = true, true
	js := jobs()
	if len(js) != 1 {
		t.Fatalf("jobs = %+v", js)
	}
	j := js[0]
	if j.Title != "Install the 2 modules Puppetfile declares with r10k" || j.Dir != root || j.Declares != pf ||
		strings.Join(j.Argv, " ") != "/usr/bin/r10k puppetfile install --puppetfile "+pf+" -v" ||
		strings.Join(j.Fills, " ") != fills || !j.ResolvesCode(codeNotInstalled) || j.Err != "" {
		t.Errorf("r10k job = %+v", j)
	}

	onPath["r10k"] = false
	j = jobs()[0]
	if j.Title != "Install the 2 modules Puppetfile declares with g10k" ||
		strings.Join(j.Argv, " ") != "/usr/bin/g10k -puppetfile -puppetfilelocation "+pf+" -info -cachedir "+filepath.Join(root, "cache", "g10k") {
		t.Errorf("g10k job = %+v", j)
	}

	onPath["g10k"] = false
	j = jobs()[0]
	if len(j.Argv) != 0 || j.Err != "cannot install the 2 modules Puppetfile declares: neither r10k nor g10k is on PATH (Debian: `apt-get install r10k`)" {
		t.Errorf("no installer: %+v", j)
	}

	write("vendor/foo/manifests/init.pp", "class foo {}\n")
	write("site/bar/manifests/init.pp", "class bar {}\n")
	if js := jobs(); len(js) != 0 {
		t.Errorf("everything installed, jobs = %+v", js)
	}
}
