package puppet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestPatchedRunsAreRebuiltRuns: a resource nothing else sees, added to
// a class three roles include, is patched into their runs (not built
// again), and the result is the one a fresh analysis gives, edit after
// edit.
func TestPatchedRunsAreRebuiltRuns(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"modules/role/manifests/a.pp":       "class role::a {\n  include profile::base\n  package { 'ra': }\n}\n",
		"modules/role/manifests/b.pp":       "class role::b {\n  package { 'rb': }\n  include profile::base\n  service { 'rb': require => Package['p1'] }\n}\n",
		"modules/role/manifests/c.pp":       "class role::c {\n  if $facts['os']['family'] == 'Debian' { include profile::base }\n}\n",
		"modules/profile/manifests/base.pp": "class profile::base {\n  package { 'p1': }\n  file { '/tmp/x': }\n  service { 's1': }\n}\n",
		"modules/other/manifests/init.pp":   "class other {\n  notify { 'x': message => \"Line ${line}\" }\n}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	ws := source.NewWorkspace(dir)
	analyze := func(sys analysis.System) *analysis.Result {
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		fs := analysis.Files([]analysis.System{sys}, in)[sys]
		return analysis.Analyze(sys, in, fs)
	}
	long := puppet.New()
	analyze(long)
	base := filepath.Join(dir, "modules/profile/manifests/base.pp")
	edits := []struct {
		text    string
		patched int
	}{
		{"class profile::base {\n  package { 'p1': }\n  package { 'new': ensure => installed }\n  file { '/tmp/x': }\n  service { 's1': }\n}\n", 3},
		{"class profile::base {\n  package { 'p1': }\n  package { 'new': ensure => installed }\n  file { '/tmp/x': }\n  service { 's1': }\n  package { 'last': }\n}\n", 3},
		{"class profile::base {\n  package { 'p1': }\n  package { 'new': ensure => installed }\n  file { '/tmp/x': }\n  service { 's1': }\n  package { 'last': }\n  package { 'ra': }\n}\n", 2},                       // a duplicate in role::a: the others only
		{"class profile::base {\n  package { 'p1': }\n  package { 'new': ensure => installed }\n  file { '/tmp/x': }\n  service { 's1': }\n  package { 'last': }\n  package { 'ra': }\n  file { '/tmp/y': }\n}\n", 0}, // a file: autorequire
	}
	for i, ed := range edits {
		ws.SetOverlay(source.NewFile(source.PathToURI(base), base, []byte(ed.text)))
		got := dump(analyze(long))
		want := dump(analyze(puppet.New()))
		if got != want {
			t.Fatalf("edit %d: the patched result differs from a fresh one\n%s", i, lineDiff(want, got))
		}
		// (role::c declares the class under a condition nobody decides:
		// the resource's hover says so there)
		if n := long.(*puppet.System).Patched; n != ed.patched {
			t.Errorf("edit %d: %d runs patched, want %d", i, n, ed.patched)
		}
	}
}

// lineDiff shows the first lines where two dumps part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d\n  fresh:   %s\n  patched: %s\n", i+1, a, c)
			if shown++; shown == 8 {
				break
			}
		}
	}
	return b.String()
}
