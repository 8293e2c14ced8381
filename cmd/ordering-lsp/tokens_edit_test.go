package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Highlighting while typing: edits and semantic token requests sent one
// after the other without waiting, analyses running beside them (run it
// with -race), then the tokens of the last text equal those a fresh
// server gives for it.
func TestSemanticTokensWhileEditing(t *testing.T) {
	for _, ex := range []struct{ path, line string }{
		{"puppet/site.pp", "notify { 'x%d': require => Package['nginx'] }\n"},
		{"salt/webserver/init.sls", "s%d:\n  test.nop:\n    - require:\n      - pkg: nginx\n"},
		{"cfengine/promises.cf", "bundle agent b%d { reports: \"x\" handle => \"h\"; }\n"},
		{"chef/policyfiles/base.rb", "cookbook \"c%d\", \"~> 1.0\"\n"},
		{"rudder/export.json", ""},
	} {
		t.Run(ex.path, func(t *testing.T) {
			root := t.TempDir()
			src := filepath.Join("..", "..", "examples")
			if err := os.CopyFS(root, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, filepath.FromSlash(ex.path))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			c, _ := lsptest.StartFresh(t, newSystems, root, nil)
			uri := source.PathToURI(p)
			c.Open(uri, "", text)
			doc := map[string]any{"textDocument": map[string]any{"uri": uri}}
			type result struct {
				ResultID string   `json:"resultId"`
				Data     []uint32 `json:"data"`
			}
			var first result
			if err := c.Call("textDocument/semanticTokens/full", doc, &first); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 12; i++ {
				line := fmt.Sprintf(ex.line, i)
				if ex.line == "" { // JSON: change a name in place
					line = ""
					text = strings.Replace(text, "Baseline", fmt.Sprintf("Base%d", i), 1)
					c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": i + 2},
						"contentChanges": []any{map[string]any{"text": text}}})
				} else {
					at := strings.Count(text, "\n") / 2
					c.Edit(uri, i+2, lsptest.Range{Start: lsptest.Position{Line: at}, End: lsptest.Position{Line: at}}, line)
					lines := strings.SplitAfter(text, "\n")
					text = strings.Join(lines[:at], "") + line + strings.Join(lines[at:], "")
				}
				var r result
				if err := c.Call("textDocument/semanticTokens/full", doc, &r); err != nil {
					t.Fatal(err)
				}
			}
			var last result
			if err := c.Call("textDocument/semanticTokens/full", doc, &last); err != nil {
				t.Fatal(err)
			}
			fresh := t.TempDir()
			if err := os.CopyFS(fresh, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			fp := filepath.Join(fresh, filepath.FromSlash(ex.path))
			if err := os.WriteFile(fp, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			c2, _ := lsptest.StartFresh(t, newSystems, fresh, nil)
			fu := source.PathToURI(fp)
			c2.Open(fu, "", text)
			var want result
			if err := c2.Call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": fu}}, &want); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(last.Data) != fmt.Sprint(want.Data) {
				t.Errorf("after the edits: %d integers, a fresh server: %d", len(last.Data), len(want.Data))
			}
			if len(want.Data) == 0 {
				t.Errorf("no tokens")
			}
		})
	}
}
