package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// counted is Puppet with its analyses counted.
type counted struct {
	*puppet.System
	n *atomic.Int32
}

func (c counted) Analyze(r *analysis.Request) *analysis.Result {
	c.n.Add(1)
	return c.System.Analyze(r)
}

// A comment typed at the top of a manifest is not analysed: the last
// result moves a line down, the words that name lines (a duplicate's
// "line: 2", a refresh's "site.pp:5") follow, and every answer is a
// fresh server's on the same text. A code edit is analysed again.
func TestLayoutEditIsNotAnalysed(t *testing.T) {
	root := t.TempDir()
	text := "notify { 'a': }\nnotify { 'a': }\nservice { 'svc': }\nfile { '/etc/conf':\n  notify => Service['svc'],\n}\nnotify { 'x': require => File['/nope'] }\n"
	writeFiles(t, root, map[string]string{"site.pp": text})
	uri := source.PathToURI(filepath.Join(root, "site.pp"))
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{counted{puppet.New().(*puppet.System), &n}}, root, nil)
	c.Open(uri, "puppet", text)
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 2 })
	c.Settle(uri)
	before := n.Load()

	comment := "# the web server\n"
	c.Edit(uri, 2, lsptest.Range{}, comment)
	first := c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool {
		return len(ds) == 2 && ds[0].Range.Start.Line == 2
	})
	c.Settle(uri)
	got := c.Diagnostics(uri)
	if after := n.Load(); after != before {
		t.Errorf("a comment line was analysed: %d analyses before it, %d after", before, after)
	}
	hover := func(c *lsptest.Client, line, char int) string { return hoverJSON(t, c, uri, line, char) }
	movedHover := hover(c, 3, 12) // Service['svc'], refreshed by the file's notify on line 6
	if !strings.Contains(movedHover, "notify at site.pp:6") {
		t.Errorf("hover of the refreshed service after the comment: %s", movedHover)
	}

	fresh, _ := lsptest.Start(t, []analysis.System{puppet.New()}, root, nil)
	fresh.Open(uri, "puppet", comment+text)
	want := fresh.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 2 })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics after the comment:\n got %+v\nwant %+v (a fresh server's)", got, want)
	}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("the first diagnostics after the comment (moved at once, before any analysis):\n got %+v\nwant %+v (a fresh server's)", first, want)
	}
	if w := hover(fresh, 3, 12); movedHover != w {
		t.Errorf("hover after the comment:\n got %s\nwant %s (a fresh server's)", movedHover, w)
	}

	// code is analysed
	c.Edit(uri, 3, lsptest.Range{Start: lsptest.Position{Line: 1}, End: lsptest.Position{Line: 2}}, "")
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 1 })
	c.Settle(uri)
	if n.Load() == before {
		t.Errorf("a code edit was not analysed")
	}
}

// Saving an open document changes nothing an analysis reads (it reads the
// document's text, not the disk's): neither the save nor the file watcher's
// report of it analyses again. A file changed on disk that is not open is
// analysed again.
func TestSaveIsNotAnalysed(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"site.pp": "include web\n", "modules/web/manifests/init.pp": "class web { notify { 'w': } }\n"}
	writeFiles(t, root, files)
	uri := source.PathToURI(filepath.Join(root, "site.pp"))
	other := source.PathToURI(filepath.Join(root, "modules/web/manifests/init.pp"))
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{counted{puppet.New().(*puppet.System), &n}}, root, nil)
	c.Open(uri, "puppet", files["site.pp"])
	c.Settle(uri)
	before := n.Load()
	c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uri, "type": 2}}})
	c.Settle(uri)
	if after := n.Load(); after != before {
		t.Errorf("saving an open document was analysed: %d analyses before, %d after", before, after)
	}
	c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": other, "type": 2}}})
	c.Settle(uri)
	if n.Load() == before {
		t.Errorf("a file changed on disk was not analysed")
	}
}

// hoverJSON is the server's answer to a hover at line:char of uri, as
// sent: the tests compare it whole with a fresh server's.
func hoverJSON(t *testing.T, c *lsptest.Client, uri string, line, char int) string {
	t.Helper()
	var h json.RawMessage
	if err := c.Call("textDocument/hover", lsptest.Pos(uri, line, char), &h); err != nil {
		t.Fatal(err)
	}
	return string(h)
}
