package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// counting owns *.other files and counts its analyses.
type counting struct{ n *atomic.Int32 }

func (counting) Name() string           { return "other" }
func (counting) Flags() []analysis.Flag { return nil }
func (counting) Owns(p string, _ func() []byte) bool {
	return strings.HasSuffix(p, ".other")
}
func (c counting) Analyze(*analysis.Request) *analysis.Result {
	c.n.Add(1)
	return &analysis.Result{}
}

// An edit re-analyses only the system that owns the edited file.
func TestEditReanalysesOnlyItsSystem(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "x.other"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{toy{}, counting{&n}}, root, nil)
	uri := source.PathToURI(filepath.Join(root, "a.toy"))
	c.Open(uri, "toy", "step a\na after b\n")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	before := n.Load()
	for v := 2; v < 7; v++ {
		c.Edit(uri, v, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 8}, End: lsptest.Position{Line: 1, Character: 9}}, "a")
		c.Edit(uri, v, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 8}, End: lsptest.Position{Line: 1, Character: 9}}, "b")
	}
	c.Edit(uri, 8, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 8}, End: lsptest.Position{Line: 1, Character: 9}}, "a")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 && strings.Contains(d[0].Message, "cycle") })
	if before < 1 || n.Load() != before {
		t.Errorf("the other system ran %d times before the edits and %d after; edits to .toy files must not re-run it", before, n.Load())
	}
}

// slow owns *.slow files and blocks its analysis until released.
type slow struct{ release chan struct{} }

func (slow) Name() string           { return "slow" }
func (slow) Flags() []analysis.Flag { return nil }
func (slow) Owns(p string, _ func() []byte) bool {
	return strings.HasSuffix(p, ".slow")
}
func (s slow) Analyze(req *analysis.Request) *analysis.Result {
	for _, f := range req.Files {
		if strings.Contains(string(f.Text), "block") {
			select {
			case <-s.release:
			case <-req.Ctx.Done():
			}
		}
	}
	return &analysis.Result{}
}

// While a long analysis runs for one file, requests on documents that
// did not change are answered from the previous analysis at once.
func TestRequestsOnUnchangedDocumentsDoNotWait(t *testing.T) {
	root := t.TempDir()
	s := slow{release: make(chan struct{})}
	defer close(s.release)
	c, _ := lsptest.Start(t, []analysis.System{toy{}, s}, root, nil)
	uri := source.PathToURI(filepath.Join(root, "a.toy"))
	c.Open(uri, "toy", "step a\na after b\n")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })

	c.Open(source.PathToURI(filepath.Join(root, "b.slow")), "slow", "block")
	done := make(chan error, 1)
	go func() {
		var hover map[string]any
		done <- c.Call("textDocument/hover", lsptest.Pos(uri, 0, 5), &hover)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hover on an unchanged document waited for an unrelated analysis")
	}
}
