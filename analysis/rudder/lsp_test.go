package rudder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestServer drives the real language server over pipes on the
// documentation example: diagnostics on disk files, go-to-definition from
// a rule's directive id to the directive, references back, hover, and a
// keystroke that changes the order.
func TestServer(t *testing.T) {
	root := t.TempDir()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "doc_example.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := lsptest.Start(t, []analysis.System{New()}, root, nil)

	r1 := source.PathToURI(filepath.Join(root, "rules", "r1.json"))
	text, _ := os.ReadFile(filepath.Join(root, "rules", "r1.json"))
	c.Open(r1, "json", string(text))
	ds := c.WaitDiagnostics(r1, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	if ds[0].Source != "rudder" || !strings.Contains(ds[0].Message, "rule name 'R1' has no numeric prefix") {
		t.Errorf("diagnostic %+v", ds[0])
	}

	// "a1" in the rule's directives: line 5 (0-based 4), inside the quotes.
	lines := strings.Split(string(text), "\n")
	line, col := -1, -1
	for i, l := range lines {
		if k := strings.Index(l, `"a1"`); k >= 0 {
			line, col = i, k+1
		}
	}
	var locs []lsptest.Location
	if err := c.Call("textDocument/definition", lsptest.Pos(r1, line, col), &locs); err != nil {
		t.Fatal(err)
	}
	a1 := source.PathToURI(filepath.Join(root, "directives", "a1.json"))
	if len(locs) != 1 || locs[0].URI != a1 || locs[0].Range.Start != (lsptest.Position{Line: 2, Character: 18}) {
		t.Errorf("definition: %+v", locs)
	}

	var refs []lsptest.Location
	params := lsptest.Pos(a1, 2, 19)
	params["context"] = map[string]any{"includeDeclaration": false}
	if err := c.Call("textDocument/references", params, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].URI != r1 {
		t.Errorf("references: %+v", refs)
	}

	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := c.Call("textDocument/hover", lsptest.Pos(a1, 2, 19), &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "2nd of 3") || !strings.Contains(hover.Contents.Value, "[merged: A1, A2]") {
		t.Errorf("hover:\n%s", hover.Contents.Value)
	}

	// Renaming R1 to "Z1" moves its policies after R0's and merges A and B
	// under R2 now: A2 places A's policy.
	c.Edit(r1, 2, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 18}, End: lsptest.Position{Line: 2, Character: 20}}, "Z1")
	c.WaitDiagnostics(r1, func(d []lsptest.Diagnostic) bool {
		return len(d) == 1 && strings.Contains(d[0].Message, "'Z1'")
	})
	if err := c.Call("textDocument/hover", lsptest.Pos(a1, 2, 19), &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "values merged 2nd of 2 into the 2nd policy 'R2 / A2'") {
		t.Errorf("hover after edit:\n%s", hover.Contents.Value)
	}
}
