package chef_test

import (
	"context"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	"github.com/ordering-lsp/ordering-lsp/lsp"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

type pipes struct {
	io.Reader
	io.WriteCloser
}

// TestLanguageServer drives the real server with the chef system over a
// pipe, as an editor would: diagnostics of a Policyfile and its lock,
// an edit that makes an include loop, hover on an include_policy line,
// go-to-definition to the included lock and references back.
func TestLanguageServer(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return source.PathToURI(p)
	}
	write("base/Policyfile.rb", "name \"base\"\nrun_list \"recipe[base::default]\"\n")
	baseLock := write("base/Policyfile.lock.json", `{"revision_id": "1111111111", "name": "base", "run_list": ["recipe[base::default]"], "cookbook_locks": {"base": {"version": "1.0.0", "source_options": {}}}}`)
	appText := "name \"app\"\ninclude_policy \"base\", path: \"../base/Policyfile.lock.json\"\nrun_list \"recipe[app::default]\"\n"
	app := write("app/Policyfile.rb", appText)

	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	srv := lsp.New([]analysis.System{chef.New()}, log.New(io.Discard, "", 0))
	go func() { _ = srv.Serve(context.Background(), pipes{sr, sw}) }()
	c := lsptest.New(t, cr, cw)
	t.Cleanup(c.Close)
	if err := c.Call("initialize", map[string]any{"processId": nil, "rootUri": source.PathToURI(root), "capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})

	c.Open(app, "ruby", appText)
	// base's Policyfile now includes app: a loop, reported once, on the
	// include that closes it (base's, the last written), app's as related.
	baseText := "name \"base\"\ninclude_policy \"app\", path: \"../app/Policyfile.lock.json\"\nrun_list \"recipe[base::default]\"\n"
	write("app/Policyfile.lock.json", `{"revision_id": "2222222222", "name": "app", "run_list": ["recipe[base::default]", "recipe[app::default]"], "cookbook_locks": {"app": {"version": "1.0.0", "source_options": {}}, "base": {"version": "1.0.0", "source_options": {}}}, "included_policy_locks": [{"name": "base", "revision_id": "1111111111", "source_options": {"path": "../base/Policyfile.lock.json"}}]}`)
	base := source.PathToURI(filepath.Join(root, "base", "Policyfile.rb"))
	c.Open(base, "ruby", baseText)
	ds := c.WaitDiagnostics(base, func(d []lsptest.Diagnostic) bool {
		for _, x := range d {
			if x.Code == "include-loop" {
				return true
			}
		}
		return false
	})
	for _, d := range ds {
		if d.Code == "include-loop" && (!strings.Contains(d.Message, "include loop: app includes base includes app") || len(d.Related) != 1) {
			t.Errorf("loop diagnostic = %+v", d)
		}
	}

	// hover on the include_policy name: the merged run list
	var hover struct{ Contents struct{ Kind, Value string } }
	if err := c.Call("textDocument/hover", lsptest.Pos(app, 1, 3), &hover); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"include\\_policy \"base\"", "1: recipe[base::default] (from base)", "2: recipe[app::default]"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}
	// definition: the included lock and the Policyfile beside it
	var locs []lsptest.Location
	if err := c.Call("textDocument/definition", lsptest.Pos(app, 1, 30), &locs); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range locs {
		got[l.URI] = true
	}
	if !got[baseLock] || !got[base] {
		t.Errorf("definition = %+v", locs)
	}
	// references of base (from its name): app's include line
	var refs []lsptest.Location
	params := lsptest.Pos(base, 0, 6)
	params["context"] = map[string]any{"includeDeclaration": false}
	if err := c.Call("textDocument/references", params, &refs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range refs {
		if r.URI == app && r.Range.Start.Line == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("references of base = %+v, want app's include_policy line", refs)
	}
	// break the loop by editing base: its diagnostics clear
	c.Edit(base, 2, lsptest.Range{Start: lsptest.Position{Line: 1}, End: lsptest.Position{Line: 2}}, "")
	c.WaitDiagnostics(base, func(d []lsptest.Diagnostic) bool {
		for _, x := range d {
			if x.Code == "include-loop" {
				return false
			}
		}
		return true
	})
}
