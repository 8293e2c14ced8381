package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
