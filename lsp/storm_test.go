package lsp_test

import (
	"fmt"
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

// A complete analysis that takes a while shows work-done progress, begun
// after a short delay and ended "done" when it finishes (it said
// "superseded by a newer change" every time: the analysis's context was
// read after it had been cancelled); a client that does not support it
// gets none.
func TestLongAnalysisReportsProgress(t *testing.T) {
	for _, supported := range []bool{true, false} {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "a.slow"), []byte("block"), 0o644)
		s := slow{release: make(chan struct{})}
		caps := map[string]any{"window": map[string]any{"workDoneProgress": supported}}
		c, _ := lsptest.Start(t, []analysis.System{s}, root, caps)
		time.Sleep(600 * time.Millisecond) // longer than the delay before progress shows
		close(s.release)
		if err := c.Call("ordering/order", map[string]any{}, nil); err != nil {
			t.Fatal(err)
		}
		want := "[]"
		if supported {
			want = "[begin end: done]"
		}
		var got []string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if got = c.Progress(); fmt.Sprint(got) == want {
				break
			}
		}
		if fmt.Sprint(got) != want {
			t.Errorf("client supports progress: %v; got %v, want %s", supported, got, want)
		}
	}
}

// A document the server does not analyse (binary here) gets a diagnostic
// at its first line saying so, instead of silence; fixing it clears it.
func TestUnanalysableDocumentGetsANotice(t *testing.T) {
	root := t.TempDir()
	c, _ := lsptest.Start(t, []analysis.System{toy{}}, root, nil)
	uri := source.PathToURI(filepath.Join(root, "b.toy"))
	c.Open(uri, "toy", "step a\x00\x01\x02")
	ds := c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) > 0 })
	if ds[0].Code != "not-analysed" || ds[0].Range.Start.Line != 0 || !strings.Contains(ds[0].Message, "binary") {
		t.Errorf("got %+v", ds)
	}
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 0, Character: 6}, End: lsptest.Position{Line: 0, Character: 9}}, "")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 0 })
}
