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

// An edit re-evaluates exactly the runs that read what it changed: two
// roles include one class (with different parameters and defaults in
// force), a third does not. Editing the shared class or the define it
// declares re-evaluates both including roles, each with its own inputs,
// and restores the third; editing the third restores the two. After
// every edit the long-lived System says what a fresh one says, and the
// edit shows in every run that reads it.
func TestRunCacheInvalidatesReaders(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	files := map[string]string{
		"modules/shared/manifests/init.pp": "class shared($greeting = 'hello') {\n  notify { \"shared-${greeting}\": }\n  if defined(Service['svc']) { notify { 'saw-svc': } }\n  shared::inst { 'one': }\n}\n",
		"modules/shared/manifests/inst.pp": "define shared::inst() { notify { \"inst-${title}\": } }\n",
		"modules/role/manifests/a.pp":      "class role::a {\n  Notify { before => Exec['gate-a'] }\n  exec { 'gate-a': command => '/bin/true' }\n  service { 'svc': }\n  class { 'shared': greeting => 'hi' }\n}\n",
		"modules/role/manifests/b.pp":      "class role::b {\n  include shared\n  notify { 'b-last': }\n}\n",
		"modules/role/manifests/c.pp":      "class role::c { notify { 'c-only': } }\n",
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
	edits := []struct {
		file, text   string
		restored     int
		runs, absent []string // in renderRuns' words
	}{
		{"modules/shared/manifests/init.pp",
			"class shared($greeting = 'hello') {\n  notify { \"shared-${greeting}\": }\n  notify { 'shared-new': }\n  if defined(Service['svc']) { notify { 'saw-svc': } }\n  shared::inst { 'one': }\n}\n",
			1, []string{
				"class role::a: Service[svc] Notify[shared-hi] Notify[shared-new] Notify[saw-svc] Notify[inst-one] Exec[gate-a]",
				"class role::b: Notify[shared-hello] Notify[shared-new] Notify[b-last] Notify[inst-one]",
				"class role::c: Notify[c-only]",
			}, nil},
		{"modules/shared/manifests/inst.pp", "define shared::inst() { notify { \"inst-${title}\": } notify { \"inst2-${title}\": } }\n",
			1, []string{
				"class role::a: Service[svc] Notify[shared-hi] Notify[shared-new] Notify[saw-svc] Notify[inst-one] Notify[inst2-one] Exec[gate-a]",
				"class role::b: Notify[shared-hello] Notify[shared-new] Notify[b-last] Notify[inst-one] Notify[inst2-one]",
			}, nil},
		{"modules/role/manifests/c.pp", "class role::c { notify { 'c-only': } notify { 'c-two': } }\n",
			2, []string{"class role::c: Notify[c-only] Notify[c-two]"}, nil},
		{"modules/role/manifests/a.pp", "class role::a {\n  exec { 'gate-a': command => '/bin/true' }\n  class { 'shared': greeting => 'hi' }\n}\n",
			2, []string{"class role::a: Exec[gate-a] Notify[shared-hi] Notify[shared-new] Notify[inst-one] Notify[inst2-one]"},
			[]string{"saw-svc"}},
	}
	for i, ed := range edits {
		p := filepath.Join(dir, ed.file)
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(ed.text)))
		res := analyze(long)
		got, want := render(res, ws, dir), render(analyze(puppet.New()), ws, dir)
		if got != want {
			t.Fatalf("edit %d (%s): cached result differs\n--- fresh\n%s\n--- cached\n%s", i, ed.file, want, got)
		}
		if r := long.(*puppet.System).Restored; r != ed.restored {
			t.Errorf("edit %d (%s): %d of %d runs restored, want %d", i, ed.file, r, len(res.Runs), ed.restored)
		}
		runs := renderRuns(res)
		for _, l := range ed.runs {
			if !strings.Contains(runs, l+"\n") && !strings.HasSuffix(runs, l) {
				t.Errorf("edit %d (%s): no run %q in\n%s", i, ed.file, l, runs)
			}
		}
		for _, s := range ed.absent {
			if strings.Contains(runs, s) {
				t.Errorf("edit %d (%s): %q still in\n%s", i, ed.file, s, runs)
			}
		}
	}
}
