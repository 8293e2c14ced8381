package salt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestLanguageServer drives the real server over pipes with the Salt
// system: diagnostics in Salt's words on the requisite, hover with the
// position, order value and _in facts, go-to-definition from a requisite
// inside a Jinja loop to the templated ID, and an edit that fixes it.
func TestLanguageServer(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	path := filepath.Join(root, "web.sls")
	text := `{% for s in ['a', 'b'] %}
pkg_{{ s }}:
  pkg.installed
svc_{{ s }}:
  service.running:
    - require:
      - pkg: pkg_{{ s }}
      - file: conf
{% endfor %}
conf:
  file.managed:
    - name: /etc/web.conf
    - require_in:
      - service: svc_a
`
	broken := strings.Replace(text, "- file: conf", "- file: cnof", 1)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := lsptest.Start(t, []analysis.System{New()}, root, nil)
	uri := source.PathToURI(path)
	c.Open(uri, "sls", broken)
	ds := c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) > 0 })
	found := false
	for _, d := range ds {
		if strings.HasPrefix(d.Message, "The following requisites were not found:") && strings.Contains(d.Message, "file: cnof") && d.Range.Start.Line == 7 {
			found = true
		}
	}
	if !found {
		t.Fatalf("diagnostics: %+v", ds)
	}
	// fix it: the diagnostics clear
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 7, Character: 14}, End: lsptest.Position{Line: 7, Character: 18}}, "conf")
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 0 })

	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	// on `svc_{{ s }}` (line 3): both loop states live there; svc_a is
	// required by conf's require_in
	if err := c.Call("textDocument/hover", lsptest.Pos(uri, 3, 1), &hover); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**service.running svc\\_a** · state", "`file.managed conf /etc/web.conf` — require", "Runs **", "order value: 10001 from auto-order", "declared by require_in: file: conf"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}
	t.Logf("hover:\n%s", hover.Contents.Value)
	var locs []lsptest.Location
	// on `pkg: pkg_{{ s }}` (line 6) -> the pkg_ IDs (line 1)
	if err := c.Call("textDocument/definition", lsptest.Pos(uri, 6, 15), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) == 0 || locs[0].URI != uri || locs[0].Range.Start.Line != 1 {
		t.Errorf("definition = %+v", locs)
	}
}
