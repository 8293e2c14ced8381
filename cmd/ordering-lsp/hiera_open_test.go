package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestHieraLinksOfDataOpenedLater: a data file opened after the
// workspace was analysed (as in an editor: the manifest first, then the
// data) gets its links to class parameters, and the manifest's Hiera
// links go on answering.
func TestHieraLinksOfDataOpenedLater(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	files := map[string]string{
		"hiera.yaml":                       "---\nversion: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
		"data/common.yaml":                 "---\nprofile::web::port: 8080\n",
		"manifests/site.pp":                "include profile::web\n",
		"modules/profile/manifests/web.pp": "class profile::web (\n  Integer $port = 80,\n) {\n  notify { \"port ${port}\": }\n}\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	pp := source.PathToURI(filepath.Join(root, "modules/profile/manifests/web.pp"))
	data := source.PathToURI(filepath.Join(root, "data/common.yaml"))
	c.Open(pp, "puppet", files["modules/profile/manifests/web.pp"])
	c.Settle(pp)
	hover := func(uri string, line, char int) string {
		var h struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}, &h); err != nil {
			t.Fatal(err)
		}
		return h.Contents.Value
	}
	if h := hover(pp, 1, 12); !strings.Contains(h, "data/common.yaml:2") {
		t.Errorf("hover on $port: %q, want the data that sets it", h)
	}
	c.Open(data, "yaml", files["data/common.yaml"])
	c.Settle(data)
	if h := hover(data, 1, 3); !strings.Contains(h, "parameter `$port` of class `profile::web`") {
		t.Errorf("hover on the data key: %q, want the parameter", h)
	}
}
