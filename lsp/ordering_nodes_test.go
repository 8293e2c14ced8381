package lsp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestNodePicker drives the node picker as a client does: the server
// advertises ordering.nodes, which lists the fact sets of the
// puppet.facts folder and the names node blocks spell; choosing one
// (the setting ordering.node) makes hovers and diagnostics that node's,
// and "all nodes" (no setting) brings back every branch.
func TestNodePicker(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"factsets/deb12.json": `{"name": "deb12.example.com", "values": {"os": {"family": "Debian", "name": "Debian", "release": {"major": "12", "full": "12.5"}}}}`,
		"factsets/el9.json":   `{"name": "el9.example.com", "values": {"os": {"family": "RedHat", "name": "RedHat", "release": {"major": "9", "full": "9.3"}}}}`,
		"environment.conf":    "modulepath = site\n",
		"manifests/site.pp":   "node 'db.example.com' { }\nnode default {\n  include role::web\n}\n",
		"site/role/manifests/web.pp": "class role::web {\n" +
			"  if $facts['os']['family'] == 'Debian' {\n    package { 'apache2': }\n  } else {\n    package { 'httpd': }\n    include role::web::redhat\n  }\n" +
			"  notify { 'web': }\n}\n",
	}
	writeFiles(t, root, files)
	c, init := lsptest.Start(t, []analysis.System{puppet.New()}, root, nil)
	cmds, _ := init["capabilities"].(map[string]any)["executeCommandProvider"].(map[string]any)["commands"].([]any)
	if !slices.Contains(cmds, any("ordering.nodes")) {
		t.Errorf("executeCommandProvider.commands = %v", cmds)
	}
	configure := func(node string) {
		c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ordering": map[string]any{
			"puppet": map[string]any{"facts": "factsets"}, "node": node}}})
	}
	configure("")
	type nodes struct {
		Current string
		Nodes   []struct {
			Name, Detail, URI string
			Data              bool
		}
	}
	var got nodes
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "ordering.nodes"}, &got); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, n := range got.Nodes {
		listed = append(listed, n.Name+" "+n.Detail)
	}
	if want := "db.example.com node block|deb12.example.com Debian 12.5|el9.example.com RedHat 9.3"; strings.Join(listed, "|") != want || got.Current != "" {
		t.Errorf("nodes = %q (current %q), want %q", strings.Join(listed, "|"), got.Current, want)
	}
	if got.Nodes[1].URI != source.PathToURI(filepath.Join(root, "factsets", "deb12.json")) || !got.Nodes[1].Data || got.Nodes[0].Data {
		t.Errorf("deb12 entry = %+v, db entry = %+v", got.Nodes[1], got.Nodes[0])
	}

	web := source.PathToURI(filepath.Join(root, "site/role/manifests/web.pp"))
	c.Open(web, "puppet", files["site/role/manifests/web.pp"])
	hover := func() string { // (of the complete analysis: the focused one's runs are the class's alone)
		c.Settle(web)
		var h struct{ Contents struct{ Value string } }
		if err := c.Call("textDocument/hover", lsptest.Pos(web, 7, 12), &h); err != nil {
			t.Fatal(err)
		}
		return h.Contents.Value
	}
	missing := func(ds []lsptest.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, "role::web::redhat") {
				return true
			}
		}
		return false
	}
	// all nodes: both branches, the RedHat class may be missing
	c.WaitDiagnostics(web, missing)
	all := hover()

	configure("deb12.example.com")
	c.WaitDiagnostics(web, func(ds []lsptest.Diagnostic) bool { return !missing(ds) })
	deb := hover()
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "ordering.nodes"}, &got); err != nil || got.Current != "deb12.example.com" {
		t.Errorf("current after choosing deb12: %q %v", got.Current, err)
	}

	configure("el9.example.com")
	ds := c.WaitDiagnostics(web, func(ds []lsptest.Diagnostic) bool { return missing(ds) })
	el := hover()
	for _, d := range ds {
		if missing([]lsptest.Diagnostic{d}) && (d.Severity != 1 || !strings.Contains(d.Message, "for el9.example.com")) {
			t.Errorf("on el9 the missing class is an error for that node: %+v", d)
		}
	}
	t.Logf("all nodes:\n%s\n--- deb12:\n%s\n--- el9:\n%s", all, deb, el)
	// all nodes: both branches' packages come before; one node: its own
	if !strings.Contains(all, "**3rd of 3**") || !strings.Contains(deb, "**2nd of 2** in `manifests/`  \n↑ after `Package[apache2]`") ||
		!strings.Contains(el, "would refuse this run") || !strings.Contains(el, "↑ after `Package[httpd]`") {
		t.Errorf("the hover does not follow the node")
	}
	configure("")
	c.WaitDiagnostics(web, missing)
	if h := hover(); h != all {
		t.Errorf("back to all nodes: hover\n%s\nwant\n%s", h, all)
	}
}

// TestNodeMatrixFollowsTheText: the "all nodes" view answers for the
// text as it is now. An edit that swaps the branch's condition swaps
// the nodes that declare the package; the hover carries the per-node
// lines only once the view asked for them, and only with no node chosen.
func TestNodeMatrixFollowsTheText(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"factsets/deb12.json": `{"name": "deb12.example.com", "values": {"os": {"family": "Debian", "name": "Debian", "release": {"major": "12", "full": "12.5"}}}}`,
		"factsets/el9.json":   `{"name": "el9.example.com", "values": {"os": {"family": "RedHat", "name": "RedHat", "release": {"major": "9", "full": "9.3"}}}}`,
		"site.pp":             "if $facts['os']['family'] == 'Debian' {\n  package { 'pkg': }\n}\nnotify { 'web': }\n",
	}
	writeFiles(t, root, files)
	c, _ := lsptest.StartFresh(t, func() []analysis.System { return []analysis.System{puppet.New()} }, root, nil)
	c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ordering": map[string]any{
		"puppet": map[string]any{"facts": "factsets"}}}})
	site := source.PathToURI(filepath.Join(root, "site.pp"))
	c.Open(site, "puppet", files["site.pp"])
	type matrix struct {
		Subject string
		Message string
		Nodes   []struct{ Name, Summary string }
	}
	ask := func(line, char int) matrix {
		var m matrix
		if err := c.Call("ordering/nodeMatrix", lsptest.Pos(site, line, char), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	lines := func(m matrix) string {
		var out []string
		for _, n := range m.Nodes {
			out = append(out, n.Name+": "+n.Summary)
		}
		return strings.Join(out, "\n")
	}
	hover := func() string {
		var h struct{ Contents struct{ Value string } }
		if err := c.Call("textDocument/hover", lsptest.Pos(site, 1, 13), &h); err != nil {
			t.Fatal(err)
		}
		return h.Contents.Value
	}
	if h := hover(); strings.Contains(h, "On each node") {
		t.Errorf("hover before the view asked has the per-node lines:\n%s", h)
	}
	if m := ask(1, 13); !strings.HasPrefix(lines(m), "deb12.example.com: 1st of 2 in ") || !strings.Contains(lines(m), "el9.example.com: not declared on this node") {
		t.Errorf("before the edit, Package[pkg]:\n%s", lines(m))
	}
	if h := hover(); !strings.Contains(h, "**On each node**") || !strings.Contains(h, "`el9.example.com` (RedHat 9.3): not declared") {
		t.Errorf("hover after the view asked lacks the per-node lines:\n%s", h)
	}
	c.Edit(site, 2, lsptest.Range{Start: lsptest.Position{Line: 0, Character: 30}, End: lsptest.Position{Line: 0, Character: 36}}, "RedHat")
	if m := ask(1, 13); !strings.Contains(lines(m), "deb12.example.com: not declared on this node") || !strings.Contains(lines(m), "el9.example.com: 1st of 2 in ") {
		t.Errorf("after the edit, Package[pkg]:\n%s", lines(m))
	}
	if m := ask(2, 0); m.Subject != "" || m.Message == "" || len(m.Nodes) != 0 {
		t.Errorf("on a closing brace: %+v", m)
	}
	var bad any
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "ordering.nodeMatrix"}, &bad); err == nil || !strings.Contains(err.Error(), "one argument") {
		t.Errorf("the command without its argument: %v", err)
	}
	c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ordering": map[string]any{
		"puppet": map[string]any{"facts": "factsets"}, "node": "el9.example.com"}}})
	if h := hover(); strings.Contains(h, "On each node") {
		t.Errorf("hover with a node chosen has the per-node lines:\n%s", h)
	}
}

// writeFiles writes a workspace: file names (slash-separated) to texts.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
