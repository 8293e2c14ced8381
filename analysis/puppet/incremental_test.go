package puppet_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A small control repository: site manifest with nodes, modules whose
// classes include each other, defines, defaults, collectors, chains and
// Hiera data, so that edits reach many runs in many ways.
var incrementalRepo = map[string]string{
	"manifests/site.pp": `node default { include web  include db }
node 'puppet-order' { include web }
node /^web\d+$/ { include web }
notify { 'top': }
`,
	"hiera.yaml":       "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
	"data/common.yaml": "web::port: 8080\n",
	"modules/web/manifests/init.pp": `class web($port = 80) {
  include web::conf
  package { 'nginx': ensure => installed }
  service { 'nginx': ensure => running, subscribe => File['/etc/nginx.conf'] }
  web::vhost { ['a', 'b']: port => $port }
  Package['nginx'] -> Class['web::conf']
}
`,
	"modules/web/manifests/conf.pp": `class web::conf {
  File { owner => 'www' }
  file { '/etc/nginx.conf': require => Package['nginx'], content => "port" }
  file { '/etc/nginx': ensure => directory }
  user { 'www': groups => ['web'] }
  group { 'web': }
}
`,
	"modules/web/manifests/vhost.pp": `define web::vhost($port = 80) {
  file { "/etc/nginx/${title}.conf": notify => Service['nginx'] }
  exec { "check-${title}": command => '/usr/bin/test', cwd => '/etc/nginx', refreshonly => true }
}
`,
	"modules/db/manifests/init.pp": `class db {
  package { 'pg': }
  db::user { 'app': }
  @user { 'virt': }
  User <| title == 'virt' |>
  include db::backup
}
`,
	"modules/db/manifests/user.pp":   "define db::user() { exec { \"user-${title}\": command => '/bin/true', require => Package['pg'] } }\n",
	"modules/db/manifests/backup.pp": "class db::backup { cron { 'b': command => '/bin/true', user => 'root', require => Class['db'] } }\n",
	"modules/db/manifests/loose.pp":  "class db::loose { notify { 'loose': before => Notify['nope'] } }\n",
	"modules/tools/manifests/init.pp": `class tools {
  $pkgs = ['git', 'vim']
  $pkgs.each |$p| { package { $p: } }
  if $facts['os']['family'] == 'Debian' { package { 'apt-tools': } } else { package { 'yum-tools': } }
  notify { 'a': } -> notify { 'b': } ~> notify { 'c': }
}
`,
}

// incEdits are what a user types: characters, brackets, quotes,
// statements, relationships.
var incEdits = []string{
	"x", "'", "\"", "{", "}", "[", "]", "\n", "#", "$", ",", "->", "~>", "=>",
	"notify { 'new': }\n", "notify { 'top': }\n", "include db::loose\n", "include tools\n",
	"require => Package['nginx'], ", "before => Notify['top'], ", "File['/etc/nginx'] -> ",
	"class extra { notify { 'extra': require => Class['web'] } }\n", "web::vhost { 'c': }\n",
	"contain web::conf\n", "Package { ensure => latest }\n", "realize(User['virt'])\n",
}

type rng struct{ s uint32 }

func (r *rng) n(k int) int {
	r.s = r.s*1664525 + 1013904223
	return int(r.s>>8) % k
}

func writeRepo(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	return dir
}

// manifests lists the .pp files of a repository's texts, sorted.
func manifests(files map[string]string) []string {
	var names []string
	for name := range files {
		if strings.HasSuffix(name, ".pp") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func analyzeWS(sys analysis.System, ws *source.Workspace, ctx context.Context) *analysis.Result {
	in := analysis.Input{Ctx: ctx, Workspace: ws, Settings: analysis.Settings{}}
	fs := analysis.Files([]analysis.System{sys}, in)[sys]
	return analysis.Analyze(sys, in, fs)
}

// TestIncrementalRandomEdits: after each of a series of random edits,
// a long-lived System (which re-parses only changed chunks and restores
// every run whose inputs did not change) gives exactly what a fresh
// System gives: the same runs and order labels, diagnostics, links and
// graph, byte for byte (see dump), with one worker or several, with
// every run evaluating its own class and define bodies, and with the
// memory of every merged run's nodes and edges overwritten before it is
// reused.
func TestIncrementalRandomEdits(t *testing.T) {
	dir := writeRepo(t, incrementalRepo)
	ws := source.NewWorkspace(dir)
	names := manifests(incrementalRepo)
	texts := map[string][]byte{}
	for _, n := range names {
		texts[n] = []byte(incrementalRepo[n])
	}
	long := puppet.New()
	// renumbered: a long-lived System whose every analysis numbers the
	// snapshots it restores again (their link places then come from the
	// table that numbered them before)
	renumbered := puppet.New()
	renumbered.(*puppet.System).Renumber = true
	// poisoned: a long-lived System that overwrites the nodes and edges
	// of every run it merged before reusing their memory
	poisoned := puppet.New()
	poisoned.(*puppet.System).PoisonFreed = true
	r := &rng{s: 12345}
	restored, replayed := 0, 0
	steps := 150
	if testing.Short() {
		steps = 40
	}
	// PUPPET_INC_EDITS=N PUPPET_INC_SEED=S: a longer or another series.
	fmt.Sscan(os.Getenv("PUPPET_INC_EDITS"), &steps)
	fmt.Sscan(os.Getenv("PUPPET_INC_SEED"), &r.s)
	for i := 0; i < steps; i++ {
		name := names[r.n(len(names))]
		text := texts[name]
		at := r.n(len(text) + 1)
		switch op := r.n(10); {
		case op < 3 && len(text) > 0: // delete 1-4 bytes
			end := min(len(text), at+1+r.n(4))
			text = append(append([]byte(nil), text[:at]...), text[end:]...)
		case op < 9:
			ins := incEdits[r.n(len(incEdits))]
			text = append(append(append([]byte(nil), text[:at]...), ins...), text[at:]...)
		default: // back to the original text
			text = []byte(incrementalRepo[name])
		}
		texts[name] = text
		p := filepath.Join(dir, name)
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, text))

		got := dump(analyzeWS(long, ws, context.Background()))
		restored += long.(*puppet.System).Restored
		fresh := puppet.New()
		want := dump(analyzeWS(fresh, ws, context.Background()))
		if got != want {
			t.Fatalf("edit %d (%s at %d): incremental result differs from a fresh one\n%s", i, name, at, firstDiff(want, got))
		}
		if re := dump(analyzeWS(renumbered, ws, context.Background())); re != want {
			t.Fatalf("edit %d (%s at %d): numbering restored runs again changes the result\n%s", i, name, at, firstDiff(want, re))
		}
		pres := analyzeWS(poisoned, ws, context.Background())
		if err := membersInGraph(pres); err != nil {
			t.Fatalf("edit %d (%s at %d): %v", i, name, at, err)
		}
		if pz := dump(pres); pz != want {
			t.Fatalf("edit %d (%s at %d): a result holds a node or edge whose memory a later run reused\n%s", i, name, at, firstDiff(want, pz))
		}
		one := puppet.New()
		one.(*puppet.System).Workers = 1
		if seq := dump(analyzeWS(one, ws, context.Background())); seq != want {
			t.Fatalf("edit %d (%s at %d): one worker and several differ\n%s", i, name, at, firstDiff(seq, want))
		}
		replayed += one.(*puppet.System).DefineReplays + one.(*puppet.System).ClassReplays
		plain := puppet.New()
		plain.(*puppet.System).NoSharedEval = true
		if own := dump(analyzeWS(plain, ws, context.Background())); own != want {
			t.Fatalf("edit %d (%s at %d): sharing class and define bodies between runs changes the result\n%s", i, name, at, firstDiff(own, want))
		}
	}
	if restored == 0 {
		t.Error("no run was ever restored: the test does not exercise the cache")
	}
	if replayed == 0 {
		t.Error("no body was ever replayed: the test does not exercise shared evaluation")
	}
	t.Logf("%d edits, %d runs restored, %d bodies replayed in all", steps, restored, replayed)
}

// membersInGraph: every node a problem names as a loop's member is a node
// of the result's graph (the code lens looks members up there; a run
// restored from an earlier analysis once named its fork's copies).
func membersInGraph(res *analysis.Result) error {
	for _, d := range res.Diags {
		for _, m := range d.Members {
			if m == nil || m.Index < 0 || m.Index >= len(res.Graph.Nodes) || res.Graph.Nodes[m.Index] != m {
				return fmt.Errorf("a member of %q is not a node of the result's graph: %v", d.Message, m)
			}
		}
	}
	return nil
}

// TestIncrementalSingleFile: the same for one big buffer edited in
// place, the language server's case for an untitled file (one run; only
// changed chunks are re-parsed, the lexer re-lexes only the edited
// statements).
func TestIncrementalSingleFile(t *testing.T) {
	base := genManifest(300)
	text := append([]byte(nil), base...)
	long := puppet.New()
	r := &rng{s: 777}
	for i := 0; i < 60; i++ {
		at := r.n(len(text) + 1)
		if r.n(3) == 0 && len(text) > 0 {
			end := min(len(text), at+1+r.n(3))
			text = append(append([]byte(nil), text[:at]...), text[end:]...)
		} else {
			ins := incEdits[r.n(len(incEdits))]
			text = append(append(append([]byte(nil), text[:at]...), ins...), text[at:]...)
		}
		got := dump(analyzeText(long, text))
		want := dump(analyzeText(puppet.New(), text))
		if got != want {
			t.Fatalf("edit %d at %d: incremental result differs\n%s", i, at, firstDiff(want, got))
		}
	}
}

// cancelAfter is a context whose Err() reports cancellation from its
// n-th call on: it cancels an analysis at each of its checks in turn.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

func (c *cancelAfter) Done() <-chan struct{} { return nil }

// TestCancelAnywhere: an analysis canceled at any of its checks returns
// promptly without panicking, and the System's next analysis (which may
// reuse what the canceled one finished) equals a fresh System's.
func TestCancelAnywhere(t *testing.T) {
	dir := writeRepo(t, incrementalRepo)
	ws := source.NewWorkspace(dir)
	// How many checks does a whole analysis make?
	probe := &cancelAfter{Context: context.Background()}
	probe.n.Store(1 << 62)
	analyzeWS(puppet.New(), ws, probe)
	total := int(probe.calls.Load())
	if total < 10 {
		t.Fatalf("only %d cancellation checks in a whole analysis", total)
	}
	p := filepath.Join(dir, "modules/web/manifests/conf.pp")
	edited := strings.Replace(incrementalRepo["modules/web/manifests/conf.pp"], "group { 'web': }", "group { 'web': before => User['www'] }", 1)
	step := max(1, total/60)
	for n := 1; n <= total+1; n += step {
		sys := puppet.New()
		analyzeWS(sys, ws, context.Background())
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(edited)))
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(int64(n))
		start := time.Now()
		analyzeWS(sys, ws, ctx) // canceled at its n-th check
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("canceled analysis took %v", d)
		}
		got := dump(analyzeWS(sys, ws, context.Background()))
		want := dump(analyzeWS(puppet.New(), ws, context.Background()))
		if got != want {
			t.Fatalf("after an analysis canceled at check %d of %d: result differs from a fresh one\n%s", n, total, firstDiff(want, got))
		}
		ws.DropOverlay(source.PathToURI(p))
	}
}

// firstDiff shows where two dumps part.
func firstDiff(want, got string) string {
	return analysistest.FirstDifference(want, got, "fresh", "incremental")
}

// The server shows how far a long analysis is: Request.Progress hears
// each merged run, counting up to the number of runs, of a total that is
// never below what is done.
func TestProgressCountsRuns(t *testing.T) {
	dir := writeRepo(t, incrementalRepo)
	ws := source.NewWorkspace(dir)
	sys := puppet.New()
	var got [][2]int
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{},
		Progress: func(done, total int) { got = append(got, [2]int{done, total}) }}
	fs := analysis.Files([]analysis.System{sys}, in)[sys]
	res := analysis.Analyze(sys, in, fs)
	if len(got) != len(res.Runs) || len(got) < 3 {
		t.Fatalf("%d progress reports for %d runs: %v", len(got), len(res.Runs), got)
	}
	for i, p := range got {
		if p[0] != i+1 || p[1] < p[0] {
			t.Errorf("report %d = %v", i, p)
		}
	}
	if last := got[len(got)-1]; last[1] != len(res.Runs) {
		t.Errorf("the total estimated %d runs, there were %d", last[1], len(res.Runs))
	}
}

// TestShiftedRunsRenumbered: an edit that moves everything after it (a
// line added at the top of each manifest in turn, then a resource added
// in the middle) rebuilds the runs that read the file, and merge numbers
// each rebuilt run against its last snapshot (mergeids.go, along): every
// node, edge, link and declared key after the edit has moved, so a
// number taken from the old place by mistake shows as a wrong place, and
// a key the edit declares (Notify[shifted], which class waiter requires
// and declares nowhere) as a missing target another run no longer
// settles. Each result must be a fresh analysis's.
func TestShiftedRunsRenumbered(t *testing.T) {
	files := maps.Clone(incrementalRepo)
	files["modules/waiter/manifests/init.pp"] = "class waiter {\n  notify { 'w': require => Notify['shifted'] }\n}\n"
	dir := writeRepo(t, files)
	ws := source.NewWorkspace(dir)
	names := manifests(incrementalRepo)
	long := puppet.New()
	analyzeWS(long, ws, context.Background())
	for _, name := range names {
		p := filepath.Join(dir, name)
		text := incrementalRepo[name]
		mid := strings.Index(text, "\n") + 1
		for _, edited := range []string{
			"\n" + text,
			"\n" + text[:mid] + "  notify { 'shifted': }\n" + text[mid:],
		} {
			ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(edited)))
			got := dump(analyzeWS(long, ws, context.Background()))
			if want := dump(analyzeWS(puppet.New(), ws, context.Background())); got != want {
				t.Fatalf("%s edited: the long-lived result differs from a fresh one\n%s", name, firstDiff(want, got))
			}
		}
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(text)))
		analyzeWS(long, ws, context.Background())
	}
}

// TestRestoredCycleMembers: a cycle's members, in a run restored after an
// edit elsewhere, are nodes of the new analysis's graph.
func TestRestoredCycleMembers(t *testing.T) {
	files := map[string]string{
		"manifests/site.pp":               "notify { 'top': }\n",
		"modules/cyc/manifests/init.pp":   "class cyc {\n  notify { 'a': require => Notify['b'] }\n  notify { 'b': require => Notify['a'] }\n}\n",
		"modules/other/manifests/init.pp": "class other { notify { 'o': } }\n",
	}
	dir := writeRepo(t, files)
	ws := source.NewWorkspace(dir)
	long := puppet.New()
	long.(*puppet.System).PoisonFreed = true
	if err := membersInGraph(analyzeWS(long, ws, context.Background())); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "modules/other/manifests/init.pp")
	ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte("class other { notify { 'o': } notify { 'p': } }\n")))
	got := analyzeWS(long, ws, context.Background())
	if long.(*puppet.System).Restored == 0 {
		t.Fatal("no run was restored: the test does not reach what it checks")
	}
	if err := membersInGraph(got); err != nil {
		t.Fatal(err)
	}
}
