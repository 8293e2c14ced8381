package lsp_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A resource nothing else sees, pasted into a class two roles include, is
// patched into their runs (analysis/puppet patchrun.go) instead of
// building them again, through the server's focused and complete
// analyses; its diagnostics, lenses and hovers are a fresh server's,
// its own hover included; a letter typed into its title replaces it
// (patchplan.go replacedPlan); cut again, it is patched out (patchout.go)
// and the file's answers are the first text's.
func TestResourcePastedAndCutIsPatched(t *testing.T) {
	root := t.TempDir()
	base := "class profile::base {\n  package { 'p1': }\n  service { 's1': require => Package['p1'] }\n}\n"
	writeFiles(t, root, map[string]string{
		"modules/role/manifests/a.pp":       "class role::a {\n  include profile::base\n  notify { 'a': require => Class['profile::base'] }\n}\n",
		"modules/role/manifests/b.pp":       "class role::b {\n  notify { 'b': }\n  include profile::base\n}\n",
		"modules/profile/manifests/base.pp": base,
	})
	uri := source.PathToURI(filepath.Join(root, "modules/profile/manifests/base.pp"))
	sys := patchCounted{System: puppet.New().(*puppet.System), n: &atomic.Int64{}}
	c, _ := lsptest.Start(t, []analysis.System{sys}, root, nil)
	c.Open(uri, "puppet", base)
	c.Settle(uri)

	// pasted after the package: one edit
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 0}, End: lsptest.Position{Line: 2, Character: 0}}, "  package { 'p2': ensure => installed }\n")
	text := strings.Replace(base, "  service", "  package { 'p2': ensure => installed }\n  service", 1)
	c.Settle(uri)
	if sys.n.Load() == 0 {
		t.Errorf("no run was patched (refused by test: %v)", sys.PatchRefused)
	}

	same(t, c, root, uri, text, "the paste")
	if h := hoverJSON(t, c, uri, 2, 13); !strings.Contains(h, "p2") {
		t.Errorf("hover of the pasted package: %s", h)
	}

	// a letter typed into its title: one edit
	sys.n.Store(0)
	c.Edit(uri, 3, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 15}, End: lsptest.Position{Line: 2, Character: 15}}, "x")
	text = strings.Replace(text, "'p2'", "'p2x'", 1)
	c.Settle(uri)
	if sys.n.Load() == 0 {
		t.Errorf("no run was patched after the title was typed (refused by test: %v)", sys.PatchRefused)
	}
	same(t, c, root, uri, text, "the title typed")

	// cut again: one edit
	sys.n.Store(0)
	c.Edit(uri, 4, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 0}, End: lsptest.Position{Line: 3, Character: 0}}, "")
	c.Settle(uri)
	if sys.n.Load() == 0 {
		t.Errorf("no run was patched after the cut (refused by test: %v)", sys.PatchRefused)
	}
	same(t, c, root, uri, base, "the cut")
}

// same: the server's diagnostics, lenses and hovers of uri are a fresh
// server's on text.
func same(t *testing.T, c *lsptest.Client, root, uri, text, after string) {
	t.Helper()
	fresh, _ := lsptest.Start(t, []analysis.System{puppet.New()}, root, nil)
	fresh.Open(uri, "puppet", text)
	fresh.Settle(uri)
	if got, want := c.Diagnostics(uri), fresh.Diagnostics(uri); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics after %s:\n got %+v\nwant %+v (a fresh server's)", after, got, want)
	}
	if got, want := lensTitles(t, c, uri), lensTitles(t, fresh, uri); !reflect.DeepEqual(got, want) {
		t.Errorf("lenses after %s:\n got %q\nwant %q (a fresh server's)", after, got, want)
	}
	for _, at := range [][2]int{{1, 13}, {2, 13}, {3, 13}, {0, 8}} {
		if g, w := hoverJSON(t, c, uri, at[0], at[1]), hoverJSON(t, fresh, uri, at[0], at[1]); g != w {
			t.Errorf("hover at %d:%d after %s:\n got %s\nwant %s (a fresh server's)", at[0], at[1], after, g, w)
		}
	}
}

// patchCounted is Puppet with the runs its analyses patched summed (the
// focused analysis after an edit may patch every run the complete one
// then restores).
type patchCounted struct {
	*puppet.System
	n *atomic.Int64
}

func (c patchCounted) Analyze(r *analysis.Request) *analysis.Result {
	res := c.System.Analyze(r)
	c.n.Add(int64(c.System.Patched))
	return res
}
