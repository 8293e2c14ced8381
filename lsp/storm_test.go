package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A git checkout that changes 1,000 files sends a storm of
// didChangeWatchedFiles; the server re-analyses once it settles, not once
// per notification, and its answer afterwards sees the last state.
func TestWatchedFilesStormAnalysesOnce(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 1000; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.other", i)), []byte("x"), 0o644)
	}
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{toy{}, counting{&n}}, root, nil)
	if err := c.Call("ordering/order", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	before := n.Load()
	// As editors send them: in batches, over about a second.
	for i := 0; i < 1000; i++ {
		uri := source.PathToURI(filepath.Join(root, fmt.Sprintf("f%d.other", i)))
		c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": uri, "type": 2}}})
		if i%20 == 19 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err := c.Call("ordering/order", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	got := n.Load() - before
	t.Logf("%d analyses", got)
	if got < 1 || got > 3 {
		t.Errorf("1,000 watched-file notifications made %d analyses; want 1 (at most 3)", got)
	}
}
