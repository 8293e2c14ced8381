package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestViewsWhileTyping types a resource into a class keystroke by
// keystroke, as an editor sends it (VS Code closes the brace and the
// quote as they are opened): the file does not parse until the last key.
// Meanwhile the code lenses, inlay hints and hovers of the declarations
// the edit did not touch stay, at their moved positions: the class body
// is read statement by statement past the one being typed (the parser's
// recoverBody), so a fresh server gives them too. An editor drops every
// lens and hint the server stops giving: in VS Code
// (editors/test/code-server-realrepo.sh on operations-puppet) the lens
// lines of the whole file vanished for seconds at each burst of typing
// and the text jumped up and back.
func TestViewsWhileTyping(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	path := filepath.Join(root, "manifests", "site.pp")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	head := "class base {\n  notify { 'a': }\n"
	tail := "  notify { 'b': require => Notify['a'] }\n}\ninclude base\n"
	if err := os.WriteFile(path, []byte(head+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := source.PathToURI(path)
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	c.Open(uri, "puppet", head+tail)
	c.Settle(uri)

	type lens struct {
		Range   lsptest.Range `json:"range"`
		Command *struct {
			Title string `json:"title"`
		} `json:"command"`
	}
	type hint struct {
		Position lsptest.Position `json:"position"`
		Label    string           `json:"label"`
	}
	views := func(text string) (lenses []lens, hints []hint, hover string) {
		t.Helper()
		doc := map[string]any{"uri": uri}
		if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": doc}, &lenses); err != nil {
			t.Fatal(err)
		}
		whole := lsptest.Range{End: lsptest.Position{Line: strings.Count(text, "\n") + 1}}
		if err := c.Call("textDocument/inlayHint", map[string]any{"textDocument": doc, "range": whole}, &hints); err != nil {
			t.Fatal(err)
		}
		// on the title 'b', on the line after the typed one
		line := strings.Count(text[:strings.Index(text, "notify { 'b'")], "\n")
		var h *struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		if err := c.Call("textDocument/hover", map[string]any{"textDocument": doc, "position": lsptest.Position{Line: line, Character: 13}}, &h); err != nil {
			t.Fatal(err)
		}
		if h != nil {
			hover = h.Contents.Value
		}
		return lenses, hints, hover
	}
	// the line as VS Code has it after each keystroke that changes what
	// parses (it closes a brace or a quote as it is opened)
	for i, typed := range []string{"n", "notify", "notify {}", "notify { '' }", "notify { 'c' }", "notify { 'c': }"} {
		text := head + "  " + typed + "\n" + tail
		c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"text": text}},
		})
		c.Settle(uri) // the analysis of this text has landed
		broken := false
		for _, d := range c.Diagnostics(uri) {
			broken = broken || strings.Contains(d.Message, "Syntax error")
		}
		lenses, hints, hover := views(text)
		// 'a' on line 1 and 'b' on line 3 (the typed resource is line 2)
		var at []int
		for _, l := range lenses {
			if l.Range.Start.Line != 2 {
				at = append(at, l.Range.Start.Line)
			}
		}
		if len(at) != 2 || at[0] != 1 || at[1] != 3 {
			t.Errorf("after typing %q (syntax error: %v): lenses of 'a' and 'b' on lines %v, want 1 and 3", typed, broken, at)
		}
		var hinted []int
		for _, h := range hints {
			if h.Position.Line != 2 {
				hinted = append(hinted, h.Position.Line)
			}
		}
		if len(hinted) != 2 || hinted[0] != 1 || hinted[1] != 3 {
			t.Errorf("after typing %q (syntax error: %v): inlay hints of 'a' and 'b' on lines %v, want 1 and 3", typed, broken, hinted)
		}
		if !strings.Contains(strings.ReplaceAll(hover, "\\", ""), "Notify[b]") {
			t.Errorf("after typing %q (syntax error: %v): hover on 'b' = %q", typed, broken, hover)
		}
	}
}
