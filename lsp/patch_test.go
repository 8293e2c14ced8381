package lsp_test

import (
	"fmt"
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
	base := "class profile::base {\n  package { 'p1': }\n  service { 's1': require => Package['p1'] }\n}\n"
	c, sys, root, uri := patchServer(t, base, "  notify { 'a': require => Class['profile::base'] }\n")

	// pasted after the package: one edit
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 0}, End: lsptest.Position{Line: 2, Character: 0}}, "  package { 'p2': ensure => installed }\n")
	text := strings.Replace(base, "  service", "  package { 'p2': ensure => installed }\n  service", 1)
	c.Settle(uri)
	sys.wantPatched(t, "the edit")

	same(t, c, root, uri, text, "the paste")
	if h := hoverJSON(t, c, uri, 2, 13); !strings.Contains(h, "p2") {
		t.Errorf("hover of the pasted package: %s", h)
	}

	// a letter typed into its title: one edit
	sys.n.Store(0)
	c.Edit(uri, 3, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 15}, End: lsptest.Position{Line: 2, Character: 15}}, "x")
	text = strings.Replace(text, "'p2'", "'p2x'", 1)
	c.Settle(uri)
	sys.wantPatched(t, "the title was typed")
	same(t, c, root, uri, text, "the title typed")

	// cut again: one edit
	sys.n.Store(0)
	c.Edit(uri, 4, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 0}, End: lsptest.Position{Line: 3, Character: 0}}, "")
	c.Settle(uri)
	sys.wantPatched(t, "the cut")
	same(t, c, root, uri, base, "the cut")
}

// patchServer starts a server on a workspace where two roles include
// profile::base (its text base; roleA: more of role::a's body), with
// the class's file open and analysed.
func patchServer(t *testing.T, base, roleA string) (c *lsptest.Client, sys patchCounted, root, uri string) {
	root = t.TempDir()
	writeFiles(t, root, map[string]string{
		"modules/role/manifests/a.pp":       "class role::a {\n  include profile::base\n" + roleA + "}\n",
		"modules/role/manifests/b.pp":       "class role::b {\n  notify { 'b': }\n  include profile::base\n}\n",
		"modules/profile/manifests/base.pp": base,
	})
	uri = source.PathToURI(filepath.Join(root, "modules/profile/manifests/base.pp"))
	sys = patchCounted{System: puppet.New().(*puppet.System), n: &atomic.Int64{}}
	c, _ = lsptest.Start(t, []analysis.System{sys}, root, nil)
	c.Open(uri, "puppet", base)
	c.Settle(uri)
	return c, sys, root, uri
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

// wantPatched fails the test when no run was patched since n was last
// reset.
func (c patchCounted) wantPatched(t *testing.T, after string) {
	t.Helper()
	if c.n.Load() == 0 {
		t.Errorf("no run was patched after %s (refused by test: %v)", after, c.PatchRefused)
	}
}

func (c patchCounted) Analyze(r *analysis.Request) *analysis.Result {
	res := c.System.Analyze(r)
	c.n.Add(int64(c.System.Patched))
	return res
}

// A resource pasted with its relationships (analysis/puppet patchmeta.go):
// a service that subscribes to a package of the class and a file that
// notifies the service are patched in; the server's answers are a fresh
// server's, the service's hover says what refreshes it, and the
// reference in the pasted line goes to the package.
func TestResourceWithRelationshipsPastedIsPatched(t *testing.T) {
	base := "class profile::base {\n  package { 'p1': }\n  service { 's1': }\n}\n"
	c, sys, root, uri := patchServer(t, base, "")

	line := "  service { 's2': subscribe => Package['p1'] }\n"
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 3, Character: 0}, End: lsptest.Position{Line: 3, Character: 0}}, line)
	text := base[:strings.LastIndex(base, "}")] + line + "}\n"
	c.Settle(uri)
	sys.wantPatched(t, "the edit")
	same(t, c, root, uri, text, "the service pasted")
	if h := hoverJSON(t, c, uri, 3, 13); !strings.Contains(h, "refreshed by") || !strings.Contains(h, "Package[p1]") {
		t.Errorf("hover of the pasted service says nothing of what refreshes it: %s", h)
	}
	var locs []lsptest.Location
	if err := c.Call("textDocument/definition", lsptest.Pos(uri, 3, 42), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].URI != uri || locs[0].Range.Start.Line != 1 {
		t.Errorf("definition from Package['p1'] in the pasted line = %+v, want the package on line 2", locs)
	}

	sys.n.Store(0)
	line2 := "  file { '/etc/s1.conf': ensure => file, notify => Service['s1'] }\n"
	c.Edit(uri, 3, lsptest.Range{Start: lsptest.Position{Line: 4, Character: 0}, End: lsptest.Position{Line: 4, Character: 0}}, line2)
	text = text[:strings.LastIndex(text, "}")] + line2 + "}\n"
	c.Settle(uri)
	sys.wantPatched(t, "the file")
	same(t, c, root, uri, text, "the file pasted")
	if h := hoverJSON(t, c, uri, 2, 13); !strings.Contains(h, "File[/etc/s1.conf]") {
		t.Errorf("hover of the notified service does not say the file refreshes it: %s", h)
	}
}

// An include typed key by key names, at each key, a class nobody defines
// (analysis/puppet patchincl.go): after the first letter each state is
// patched into the runs (the diagnostic moves to the new name), and the
// server's answers are a fresh server's; the hint says the module is not
// in the workspace.
func TestIncludeTypedIsPatched(t *testing.T) {
	base := "class profile::base {\n  package { 'p1': }\n}\n"
	c, sys, root, uri := patchServer(t, base, "")
	at := func(col int) lsptest.Range {
		p := lsptest.Position{Line: 2, Character: col}
		return lsptest.Range{Start: p, End: p}
	}
	c.Edit(uri, 2, at(0), "  include n\n")
	c.Settle(uri)
	var text string
	v := 3
	for i, k := range "owhere" {
		sys.n.Store(0)
		c.Edit(uri, v, at(11+i), string(k))
		v++
		text = strings.TrimSuffix(base, "}\n") + "  include n" + "owhere"[:i+1] + "\n}\n"
		c.Settle(uri)
		sys.wantPatched(t, fmt.Sprintf("key %q", k))
	}
	if !strings.Contains(text, "include nowhere\n") {
		t.Fatalf("the test typed %q", text)
	}
	same(t, c, root, uri, text, "the include typed")
	ds := c.Diagnostics(uri)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "Could not find class ::nowhere") || ds[0].Severity != 4 ||
		ds[0].Range.Start.Line != 2 || ds[0].Range.Start.Character != 10 {
		t.Errorf("diagnostics of the include typed: %+v", ds)
	}
}

// A value nobody reads typed over, or an attribute line added (the
// server follows either without an analysis), then a resource pasted: the
// runs, which may read the text before both, are moved and patched
// (analysis/puppet patchmove.go), not built again; the answers are a
// fresh server's.
func TestResourcePastedAfterFollowedEditsIsPatched(t *testing.T) {
	base := "class profile::base {\n  package { 'p1':\n    ensure => installed,\n  }\n  service { 's1': }\n}\n"
	c, sys, root, uri := patchServer(t, base, "")
	pos := func(line, col int) lsptest.Range {
		p := lsptest.Position{Line: line, Character: col}
		return lsptest.Range{Start: p, End: p}
	}
	text := base
	for i, followed := range []struct {
		edit lsptest.Range
		with string
	}{
		{lsptest.Range{Start: lsptest.Position{Line: 2, Character: 14}, End: lsptest.Position{Line: 2, Character: 23}}, "latest"},
		{pos(3, 0), "    provider => apt,\n"},
	} {
		sys.n.Store(0)
		c.Edit(uri, 2+2*i, followed.edit, followed.with)
		c.Settle(uri)
		line := strings.Count(text, "\n") - 1 + i // (before the closing brace, after the attribute line)
		c.Edit(uri, 3+2*i, pos(line, 0), fmt.Sprintf("  notify { 'pasted%d': }\n", i))
		c.Settle(uri)
		if i == 0 {
			text = strings.Replace(text, "installed", "latest", 1)
		} else {
			text = strings.Replace(text, "latest,\n", "latest,\n    provider => apt,\n", 1)
		}
		text = strings.TrimSuffix(text, "}\n") + fmt.Sprintf("  notify { 'pasted%d': }\n}\n", i)
		sys.wantPatched(t, followed.with)
		same(t, c, root, uri, text, "the paste after "+followed.with)
	}
}
