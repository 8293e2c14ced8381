package cfengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// countdownCtx is a context that reports cancellation after its Err has
// been asked n times: it cancels an analysis at every possible phase.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// summary renders what a user sees of a result: the runs and the
// diagnostics.
func summary(ws *source.Workspace, dir string, res *analysis.Result) string {
	var sb strings.Builder
	for _, r := range res.Runs {
		sb.WriteString("run " + r.Name + "\n")
		for _, st := range r.Steps {
			sb.WriteString("  " + st.Label + "\n")
		}
	}
	ds := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(ds)
	for _, d := range ds {
		sb.WriteString(analysis.CheckLine(ws, dir, d) + "\n")
	}
	return sb.String()
}

// An analysis canceled at any point returns at once without breaking the
// system: the next analysis on the same (warm) system is the one a fresh
// system gives.
func TestCancelAtEveryPhase(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"bundlesequence.cf", "depends_on.cf", "passes.cf", "iteration.cf"} {
		data, err := os.ReadFile(filepath.Join("testdata/oracle", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := source.NewWorkspace(dir)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	fresh := New()
	files := analysis.Files([]analysis.System{fresh}, in)[fresh]
	want := summary(ws, dir, analysis.Analyze(fresh, in, files))
	if !strings.Contains(want, "run passes.cf") {
		t.Fatalf("unexpected baseline:\n%s", want)
	}
	sys := New()
	for n := 0; n < 40; n++ {
		cin := in
		cin.Ctx = &countdownCtx{Context: context.Background(), n: n}
		res := analysis.Analyze(sys, cin, files)
		if res == nil {
			t.Fatal("nil result")
		}
		for _, d := range res.Diags {
			if d.Code == "internal-error" {
				t.Fatalf("cancel after %d checks: %s", n, d.Message)
			}
		}
		if got := summary(ws, dir, analysis.Analyze(sys, in, files)); got != want {
			t.Fatalf("after an analysis canceled at check %d, the next one differs:\n--- got\n%s--- want\n%s", n, got, want)
		}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cin := in
	cin.Ctx = canceled
	if res := analysis.Analyze(sys, cin, files); len(res.Runs) != 0 {
		t.Errorf("a canceled analysis computed %d runs", len(res.Runs))
	}
}
