package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// ordering/graph draws containers as compound nodes (each node names its
// container when the container is drawn too) and, asked with a position,
// says which node the view centres on: the target of the reference under
// the cursor, else the declaration there.
func TestGraphContainersAndFocus(t *testing.T) {
	root := t.TempDir()
	text := "class web {\n  package { 'nginx': }\n  service { 'nginx': require => Package['nginx'] }\n}\ninclude web\n"
	path := filepath.Join(root, "site.pp")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := source.PathToURI(path)
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	type node struct {
		ID        int
		Label     string
		Parent    *int
		Container bool
	}
	var g struct {
		Nodes []node
		Focus *int
	}
	// the cursor on `Package['nginx']` in the service's require (line 3, 0-based 2)
	if err := c.Call("ordering/graph", map[string]any{"uri": uri, "position": lsptest.Position{Line: 2, Character: 42}}, &g); err != nil {
		t.Fatal(err)
	}
	byLabel := map[string]node{}
	for _, n := range g.Nodes {
		byLabel[n.Label] = n
	}
	class, pkg, svc := byLabel["Class[Web]"], byLabel["Package[nginx]"], byLabel["Service[nginx]"]
	if !class.Container || class.Parent != nil {
		t.Errorf("Class[Web] = %+v, want a container with no parent", class)
	}
	for _, n := range []node{pkg, svc} {
		if n.Parent == nil || *n.Parent != class.ID {
			t.Errorf("%s: parent %v, want Class[Web] (%d)", n.Label, n.Parent, class.ID)
		}
	}
	if g.Focus == nil || *g.Focus != pkg.ID {
		t.Errorf("focus %v, want Package[nginx] (%d): the target of the reference under the cursor", g.Focus, pkg.ID)
	}
	// on the service's title: the service itself
	if err := c.Call("ordering/graph", map[string]any{"uri": uri, "position": lsptest.Position{Line: 2, Character: 14}}, &g); err != nil {
		t.Fatal(err)
	}
	if g.Focus == nil || *g.Focus != svc.ID {
		t.Errorf("focus %v, want Service[nginx] (%d)", g.Focus, svc.ID)
	}
	// on `service {`, before the title: the resource declared on that line
	if err := c.Call("ordering/graph", map[string]any{"uri": uri, "position": lsptest.Position{Line: 2, Character: 4}}, &g); err != nil {
		t.Fatal(err)
	}
	if g.Focus == nil || *g.Focus != svc.ID {
		t.Errorf("cursor on the type: focus %v, want Service[nginx] (%d)", g.Focus, svc.ID)
	}
}

// The graph of one file is its declarations and what is one relationship
// away from them, not what is further along: marking while scanning the
// edges once made it transitive in edge order, and the graph of
// operations-puppet's base.pp (4 declarations) held 12,429 nodes.
func TestGraphOfAFileIsOneStepOut(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	site := write("site.pp", "notify { 'x': }\ninclude far\n")
	write("modules/far/manifests/init.pp", "class far {\n  notify { 'y': require => Notify['x'] }\n  notify { 'z': require => Notify['y'] }\n}\n")
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	var g struct{ Nodes []struct{ Label string } }
	if err := c.Call("ordering/graph", map[string]any{"uri": source.PathToURI(site)}, &g); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, n := range g.Nodes {
		got[n.Label] = true
	}
	if !got["Notify[x]"] || !got["Notify[y]"] || got["Notify[z]"] {
		t.Errorf("graph of site.pp: %v; want Notify[x] and Notify[y] (one relationship away), not Notify[z] (two)", g.Nodes)
	}
}
