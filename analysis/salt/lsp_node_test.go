package salt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestLanguageServerNode drives the server over pipes on the tree of
// testdata/fixtures/node_db02.txtar (orders from real Salt): with no node
// the highstate is a machine matching every target and roles/web.sls is
// clean; the editor's setting `ordering.node` = db02 (with
// `ordering.salt.minions`) makes the server follow that minion, whose top
// selection lacks roles.app, so web_srv's require fails there and the
// hover places web_srv in db02's highstate; switching to web01 clears it.
func TestLanguageServerNode(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/fixtures/node_db02.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	analysistest.WriteInputs(t, root, ar)
	c, _ := lsptest.Start(t, []analysis.System{New()}, root, nil)
	web := source.PathToURI(filepath.Join(root, "salt", "roles", "web.sls"))

	setNode := func(node string) {
		c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ordering": map[string]any{
			"node": node, "salt": map[string]any{"minions": "minions"}}}})
	}
	setNode("db02")
	ds := c.WaitDiagnostics(web, func(ds []lsptest.Diagnostic) bool { return len(ds) > 0 })
	if len(ds) != 1 || !strings.HasPrefix(ds[0].Message, "The following requisites were not found:") ||
		!strings.Contains(ds[0].Message, "test: app_cfg") || ds[0].Range.Start != (lsptest.Position{Line: 4, Character: 8}) {
		t.Fatalf("db02: diagnostics of roles/web.sls = %+v", ds)
	}
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := c.Call("textDocument/hover", lsptest.Pos(web, 0, 2), &hover); err != nil {
		t.Fatal(err)
	}
	// db02's highstate (Salt): core_apt, core_pkg, web_srv, db_srv, db_extra, batch_state
	if !strings.Contains(hover.Contents.Value, "**3rd of 6** in `highstate db02`") {
		t.Errorf("db02: hover on web_srv does not place it in db02's highstate:\n%s", hover.Contents.Value)
	}

	setNode("web01")
	c.WaitDiagnostics(web, func(ds []lsptest.Diagnostic) bool { return len(ds) == 0 })
}
