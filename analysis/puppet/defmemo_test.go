package puppet_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestDefineMemoReplays: in shared_define_inputs, one define instance is
// evaluated by five runs in order (recorded from its second evaluation
// on); role::b must not get role::a's evaluation (its defined() tests, the class variable it reads and the
// resources it finds differ), role::c gets role::b's, role::d (another
// class variable) and role::e (another answer of defined()) get neither. Each run's order is
// puppet-order's, which TestFixtures checks with several workers; here one
// worker fixes which run records and which replays.
func TestDefineMemoReplays(t *testing.T) {
	sys := oneWorkerRuns(t, "shared_define_inputs.txtar")
	if sys.DefineEvals != 4 || sys.DefineReplays != 1 {
		t.Errorf("define bodies: %d evaluated, %d replayed; want 4 and 1 (role::c replays role::b)", sys.DefineEvals, sys.DefineReplays)
	}
}

// TestDefaultsReplayed: in shared_defaults_order, role::b records
// memo::gated's body (a resource default written between two of its
// resources; role::a saw it first) and role::e replays it three
// positions further down its catalog: the default must still reach only
// the later notify there (a default's position moves with the replay,
// as its resources' do). memo::param's instance is evaluated in each of
// role::c, role::d and role::e: the default role::c and role::e give its
// parameter makes it another instance from role::d's.
func TestDefaultsReplayed(t *testing.T) {
	sys := oneWorkerRuns(t, "shared_defaults_order.txtar")
	if sys.DefineEvals != 5 || sys.DefineReplays != 1 {
		t.Errorf("define bodies: %d evaluated, %d replayed; want 5 and 1 (role::e replays memo::gated)", sys.DefineEvals, sys.DefineReplays)
	}
}

// TestDefineMemoDifferential: every server-mode fixture gives the same
// result, to the byte, whether define bodies are shared between runs or
// each run evaluates its own, on one worker and on several.
func TestDefineMemoDifferential(t *testing.T) {
	replays := 0
	eachServerFixture(t, func(t *testing.T, dir string, settings analysis.Settings) {
		plain := puppet.New().(*puppet.System)
		plain.NoSharedEval = true
		ref, _ := analyzeServer(dir, settings, plain)
		want := dump(ref)
		for _, workers := range []int{1, 3} {
			sys := puppet.New().(*puppet.System)
			sys.Workers = workers
			res, _ := analyzeServer(dir, settings, sys)
			if got := dump(res); got != want {
				t.Errorf("%d workers: the result differs from every run evaluating its own define bodies\n%s", workers, firstDiff(want, got))
			}
			replays += sys.DefineReplays + sys.ClassReplays
		}
	})
	if replays == 0 {
		t.Error("no fixture replayed a define body: the differential checks nothing")
	}
}

// TestClassMemoReplays: in shared_class_nested, five runs declare the
// same nested classes. One worker builds them in order; a body is
// recorded the second time its declaration comes. role::a evaluates its
// five class bodies (the role, memo::config, memo::stack, memo::inner,
// memo::leaf); role::b evaluates the same five, recording memo::inner
// and memo::leaf in it; role::c evaluates the role, memo::config and
// memo::stack (declared at places of their own) and replays role::b's
// memo::inner whole; role::d and role::e evaluate those three and
// memo::inner (whose inputs differ from role::b's) and replay memo::leaf.
// Each run's order is puppet-order's.
func TestClassMemoReplays(t *testing.T) {
	sys := oneWorkerRuns(t, "shared_class_nested.txtar")
	if sys.ClassEvals != 5+5+3+4+4 || sys.ClassReplays != 3 {
		t.Errorf("class bodies: %d evaluated, %d replayed; want 21 and 3", sys.ClassEvals, sys.ClassReplays)
	}
}

// TestClassMemoWords: in shared_class_branch_words, memo::guarded's
// messages name its own undecided branches (an include its module lacks
// under an `if` on a fact, an include of a name built from a fact,
// behind `defined()` and bare). Those words are the class's source, the
// same in every run, so its body is recorded and replayed like any
// other: role::a and role::b evaluate their three classes (the role,
// memo::wrap, memo::guarded; role::b records memo::guarded), role::c
// evaluates two and replays memo::guarded, and memo::fam_metal and
// memo::fam_vm, which nothing names as written, are runs of their own
// (one body each). (Before, such a message kept
// the body from being shared: operations-puppet's profile::base was
// evaluated in each of the 300 runs that include it.)
func TestClassMemoWords(t *testing.T) {
	sys := oneWorkerRuns(t, "shared_class_branch_words.txtar")
	if sys.ClassEvals != 3+3+2+1+1 || sys.ClassReplays != 1 {
		t.Errorf("class bodies: %d evaluated, %d replayed; want 10 and 1 (role::c replays memo::guarded)", sys.ClassEvals, sys.ClassReplays)
	}
}

// oneWorkerRuns analyses a fixture with one worker (which run records a
// body and which replays it is then fixed) and checks its want/runs.
func oneWorkerRuns(t *testing.T, fixture string) *puppet.System {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	sys := puppet.New().(*puppet.System)
	sys.Workers = 1
	res, _, _ := loadServerWith(t, ar, sys)
	want := ""
	for _, f := range ar.Files {
		if f.Name == "want/runs" {
			want = string(f.Data)
		}
	}
	if got := renderRuns(res); got != want {
		t.Errorf("runs\n--- want\n%s--- got\n%s", want, got)
	}
	return sys
}

// TestMemoForgetSame: a one-shot analysis that forgets the shared
// evaluations no run asked for in the last run (the shortest window)
// gives every server-mode fixture the result of one that shares nothing,
// to the byte, on one worker and on several; and it does forget.
func TestMemoForgetSame(t *testing.T) {
	forgotten := 0
	eachServerFixture(t, func(t *testing.T, dir string, settings analysis.Settings) {
		plain := puppet.New().(*puppet.System)
		plain.NoSharedEval = true
		want := dump(analyzeOnce(dir, settings, plain))
		for _, workers := range []int{1, 3} {
			sys := puppet.New().(*puppet.System)
			sys.Workers, sys.MemoWindow = workers, 1
			if got := dump(analyzeOnce(dir, settings, sys)); got != want {
				t.Errorf("%d workers: the result differs from every run evaluating its own bodies\n%s", workers, firstDiff(want, got))
			}
			forgotten += sys.MemoForgotten
		}
		// a window wider than the fixture forgets nothing
		sys := puppet.New().(*puppet.System)
		sys.Workers = 1
		if got := dump(analyzeOnce(dir, settings, sys)); got != want {
			t.Errorf("default window: the result differs\n%s", firstDiff(want, got))
		}
		if sys.MemoForgotten != 0 {
			t.Errorf("default window: %d keys forgotten in a fixture of a few runs", sys.MemoForgotten)
		}
	})
	t.Logf("%d keys forgotten", forgotten)
	if forgotten == 0 {
		t.Error("no fixture forgot a key: the test checks nothing")
	}
}

// analyzeOnce analyses a folder as check does, but for the whole result.
func analyzeOnce(dir string, settings analysis.Settings, sys analysis.System) *analysis.Result {
	ws := source.NewWorkspace(dir)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings, Once: true}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return analysis.Analyze(sys, in, files)
}

// eachServerFixture runs check, as a subtest, on the files of every
// server-mode fixture written to a folder.
func eachServerFixture(t *testing.T, check func(t *testing.T, dir string, settings analysis.Settings)) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	sort.Strings(paths)
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ar.Comment), "mode: server") {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			dir, settings := writeServer(t, ar)
			check(t, dir, settings)
		})
	}
}
