package puppet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/controlrepo"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestLazyFirstAnalysis: the first focused analysis of a file (the server
// opening it) parses only what its runs read, and publishes what it
// would publish with every file parsed: the same runs, the same
// diagnostics of the file. Workspaces: a generated control repository,
// one made to catch a lazy index out (a class defined twice, the later
// file opened; definitions nested in a class; a definition outside its
// autoload path, after a comment; a class found by a pattern), and with
// ORDERING_CORPUS=dir every Puppet repository under it (a sample of files
// each; ORDERING_LAZY_FILES: how many, default 40).
//
// The same holds for the file edited while the complete analysis that
// follows is still parsing the workspace: the edit cancels it, and the
// edit's focused analysis parses only what its runs read again, with the
// same runs and diagnostics as with every file parsed.
func TestLazyFirstAnalysis(t *testing.T) {
	gen := t.TempDir()
	if _, err := controlrepo.Write(gen, controlrepo.Shape{Modules: 30, Profiles: 12, Roles: 30, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	tricky := t.TempDir()
	for name, text := range map[string]string{
		"manifests/site.pp":                    "node default { include role::web }\n",
		"modules/role/manifests/web.pp":        "class role::web { include profile::a\n include profile::b\n include \"profile::${facts['x']}\" }\n",
		"modules/profile/manifests/a.pp":       "class profile::a { include lib\n lib::tool { 'x': }\n notify { 'a': require => Class['lib::inner'] } }\n",
		"modules/profile/manifests/b.pp":       "class profile::b { include other::misplaced\n include nowhere::at_all }\n",
		"modules/profile/manifests/c.pp":       "class profile::c { notify { 'c': } }\n",
		"modules/lib/manifests/init.pp":        "class lib { class inner { notify { 'inner': } }\n define tool() { notify { \"tool ${title}\": } } }\n",
		"modules/lib/manifests/dup.pp":         "class lib { notify { 'the later lib': } }\n",
		"modules/zz/manifests/elsewhere.pp":    "# defined where autoload would not look\nclass /* why */ other::misplaced { notify { 'm': before => Notify['a'] } }\n",
		"modules/profile/manifests/strange.pp": "class profile::strange inherits lib { include profile::a }\n",
	} {
		p := filepath.Join(tricky, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{gen, tricky}
	if c := os.Getenv("ORDERING_CORPUS"); c != "" {
		ms, _ := filepath.Glob(filepath.Join(c, "*"))
		dirs = append(dirs, ms...)
	}
	limit := 40
	fmt.Sscan(os.Getenv("ORDERING_LAZY_FILES"), &limit)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			dir, _ = filepath.EvalSymlinks(dir)
			ws := source.NewWorkspace(dir)
			files := analysis.Files([]analysis.System{New()}, analysis.Input{Ctx: context.Background(), Workspace: ws})
			var all []*source.File
			for _, fs := range files {
				all = fs
			}
			var pick []*source.File
			step := max(1, len(all)/limit)
			for i := 0; i < len(all); i += step {
				pick = append(pick, all[i])
			}
			if dir == tricky {
				pick = all
			}
			lazier, lazierEdited := 0, 0
			for _, f := range pick {
				lazy, lazySys := firstAnalysis(ws, f.URI, false, false)
				eager, _ := firstAnalysis(ws, f.URI, true, false)
				if lazy != eager {
					t.Errorf("%s: opened first\nlazily:\n%s\nwith every file parsed:\n%s", f.Path, lazy, eager)
				}
				if lazySys.Loaded < len(all) {
					lazier++
				}
				lazy, lazySys = firstAnalysis(ws, f.URI, false, true)
				eager, _ = firstAnalysis(ws, f.URI, true, true)
				if lazy != eager {
					t.Errorf("%s: edited while the workspace was parsed\nlazily:\n%s\nwith every file parsed:\n%s", f.Path, lazy, eager)
				}
				if lazySys.Loaded < len(all) {
					lazierEdited++
				}
			}
			if (lazier == 0 || lazierEdited != lazier) && len(all) > 3 {
				t.Errorf("of %d files opened, %d parsed fewer than all %d files, and %d edited after a canceled analysis", len(pick), lazier, len(all), lazierEdited)
			}
			t.Logf("%d files, %d opened, %d of them with fewer parsed", len(all), len(pick), lazier)
		})
	}
}

// firstAnalysis is what the server publishes when it opens uri first: the
// focused analysis's runs and uri's diagnostics. With edited, what it
// publishes when uri is edited next, while the complete analysis that
// follows the open is parsing the workspace: that analysis is canceled
// (before it loaded anything), then uri's focused analysis runs again.
func firstAnalysis(ws *source.Workspace, uri string, eager, edited bool) (string, *System) {
	sys := New().(*System)
	sys.eager = eager
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Focus: []string{uri}}
	fs := analysis.Files([]analysis.System{sys}, in)[sys]
	res := analysis.Analyze(sys, in, fs)
	if edited {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		analysis.Analyze(sys, analysis.Input{Ctx: ctx, Workspace: ws}, fs)
		res = analysis.Analyze(sys, in, fs)
	}
	var out []string
	out = append(out, fmt.Sprint("partial ", res.Partial))
	for _, r := range res.Runs {
		out = append(out, "run "+r.Name)
	}
	for _, d := range res.Diags {
		if d.At.URI == uri {
			out = append(out, fmt.Sprintf("%d-%d %v %s %s", d.At.Start, d.At.End, d.Severity, d.Code, d.Message))
		}
	}
	sort.Strings(out[1:])
	return strings.Join(out, "\n"), sys
}
