package puppet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// render is everything a client sees of a result, in a stable text form.
func render(res *analysis.Result, ws *source.Workspace, dir string) string {
	var b strings.Builder
	b.WriteString(renderRuns(res))
	ds := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(ds)
	for _, d := range ds {
		fmt.Fprintln(&b, analysis.CheckLine(ws, dir, d))
	}
	b.WriteString(renderRelated(res, ws, dir))
	b.WriteString(renderLinks(res, ws, dir))
	b.WriteString(renderFacts(res, ws, dir))
	var edges []string
	for _, e := range res.Graph.Edges {
		edges = append(edges, fmt.Sprintf("%s@%s -> %s@%s %s %s", e.From.Ref, where(ws, dir, e.From.Decl), e.To.Ref, where(ws, dir, e.To.Decl), e.Kind, e.Reason))
	}
	sort.Strings(edges)
	b.WriteString(strings.Join(edges, "\n"))
	var syms []string
	for _, n := range res.Graph.Nodes {
		p := ""
		if n.Parent != nil {
			p = n.Parent.Ref
		}
		syms = append(syms, fmt.Sprintf("%s %s %v %s", n.Ref, where(ws, dir, n.Decl), n.Hidden, p))
	}
	sort.Strings(syms)
	b.WriteString(strings.Join(syms, "\n"))
	return b.String()
}

// The run cache is invisible: after each edit, a long-lived System (which
// restores unchanged runs) says exactly what a fresh one says.
func TestRunCacheEquivalence(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	files := map[string]string{
		"manifests/site.pp":              "node default { include web }\nnotify { 'top': }\n",
		"modules/web/manifests/init.pp":  "class web { include web::conf  package { 'nginx': } service { 'nginx': subscribe => File['/etc/nginx.conf'] } }\n",
		"modules/web/manifests/conf.pp":  "class web::conf { file { '/etc/nginx.conf': require => Package['nginx'] } }\n",
		"modules/db/manifests/init.pp":   "class db { package { 'pg': } db::user { 'app': } }\n",
		"modules/db/manifests/user.pp":   "define db::user() { exec { \"user-${title}\": command => '/bin/true', require => Package['pg'] } }\n",
		"modules/db/manifests/backup.pp": "class db::backup { cron { 'b': command => '/bin/true', require => Class['db'] } }\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	ws := source.NewWorkspace(dir)
	long := puppet.New()
	analyze := func(sys analysis.System) *analysis.Result {
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		fs := analysis.Files([]analysis.System{sys}, in)[sys]
		return analysis.Analyze(sys, in, fs)
	}
	edits := []struct{ file, text string }{
		{"", ""},
		{"modules/db/manifests/user.pp", "define db::user() { exec { \"user-${title}\": command => '/bin/true', require => Package['pgx'] } }\n"},
		{"modules/web/manifests/conf.pp", "class web::conf { file { '/etc/nginx.conf': require => Package['nginx'], before => Service['nginx'] } }\n"},
		{"modules/web/manifests/conf.pp", "class web::conf { file { '/etc/nginx.conf': require => Package['nginx'], notify => Service['nginx'] }\n"},
		{"modules/db/manifests/init.pp", "class db { package { 'pg': } db::user { ['app', 'ops']: } include db::backup }\n"},
		{"manifests/site.pp", "node default { include web include db }\nnotify { 'top': before => Class['web'] }\n"},
		{"modules/web/manifests/conf.pp", "class web::conf { file { '/etc/nginx.conf': require => Package['nginx'] } }\n"},
		{"", ""},
	}
	restoredSome := false
	for i, ed := range edits {
		if ed.file != "" {
			p := filepath.Join(dir, ed.file)
			ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(ed.text)))
		}
		got := render(analyze(long), ws, dir)
		want := render(analyze(puppet.New()), ws, dir)
		if got != want {
			t.Fatalf("edit %d (%s): cached result differs\n--- fresh\n%s\n--- cached\n%s", i, ed.file, want, got)
		}
		if long.(*puppet.System).Restored > 0 {
			restoredSome = true
		}
	}
	if !restoredSome {
		t.Error("no run was ever restored from the cache")
	}
}

// TestRunCacheCorpus: the same equivalence on a real module
// (ORDERING_CORPUS_CACHE=/tmp/corpus/puppet/puppetlabs-apache): append a
// resource to some files one after the other.
func TestRunCacheCorpus(t *testing.T) {
	dir := os.Getenv("ORDERING_CORPUS_CACHE")
	if dir == "" {
		t.Skip("set ORDERING_CORPUS_CACHE to a module or control repo")
	}
	dir, _ = filepath.EvalSymlinks(dir)
	ws := source.NewWorkspace(dir)
	analyze := func(sys analysis.System) *analysis.Result {
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		fs := analysis.Files([]analysis.System{sys}, in)[sys]
		return analysis.Analyze(sys, in, fs)
	}
	var pps []string
	filepath.WalkDir(filepath.Join(dir, "manifests"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".pp") {
			pps = append(pps, p)
		}
		return nil
	})
	sort.Strings(pps)
	long := puppet.New()
	analyze(long)
	n, stride := 60, 7
	fmt.Sscan(os.Getenv("ORDERING_CORPUS_CACHE_EDITS"), &n, &stride)
	for i := 0; i < len(pps) && i < n; i += stride {
		p := pps[i]
		text, _ := os.ReadFile(p)
		text = append(text, []byte("\nnotify { 'cache-probe-"+fmt.Sprint(i)+"': require => Notify['nope'] }\n")...)
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, text))
		t0 := time.Now()
		res := analyze(long)
		cachedTook := time.Since(t0)
		got := dump(res)
		restored := long.(*puppet.System).Restored
		t0 = time.Now()
		fresh := analyze(puppet.New())
		freshTook := time.Since(t0)
		want := dump(fresh)
		if got != want {
			t.Fatalf("after editing %s: cached result differs\n%s", p, firstDiff(want, got))
		}
		t.Logf("edit %s: %d of %d runs restored, %v (fresh System: %v)", filepath.Base(p), restored, len(res.Runs), cachedTook.Round(time.Millisecond), freshTook.Round(time.Millisecond))
	}
}
