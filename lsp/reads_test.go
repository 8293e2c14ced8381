package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/cfengine"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Editing a file a system reads but does not own (a Puppetfile) analyses
// that system again: the manifests' diagnostics follow the Puppetfile as
// a fresh server's would, without an edit to any manifest. (role::web is
// declared by nothing in the workspace: its missing class is a warning,
// then a hint once the Puppetfile declares the module.)
func TestEditOfReadFileReanalyses(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"Puppetfile":                         "mod 'puppet/nginx', '5.0.0'\n",
		"site-modules/role/manifests/web.pp": "class role::web {\n  include nginx\n  include letsencrypt\n}\n",
	}
	writeFiles(t, root, files)
	c, _ := lsptest.Start(t, []analysis.System{puppet.New()}, root, nil)
	web := source.PathToURI(filepath.Join(root, "site-modules/role/manifests/web.pp"))
	pf := source.PathToURI(filepath.Join(root, "Puppetfile"))
	c.Open(web, "puppet", files["site-modules/role/manifests/web.pp"])
	severityOf := func(ds []lsptest.Diagnostic, class string) int {
		for _, d := range ds {
			if strings.Contains(d.Message, "::"+class+" ") {
				return d.Severity
			}
		}
		return 0
	}
	c.WaitDiagnostics(web, func(ds []lsptest.Diagnostic) bool {
		return severityOf(ds, "nginx") == 4 && severityOf(ds, "letsencrypt") == 2
	})
	// A hover answers from the complete analysis: once it has, nothing
	// started before the edit is still running.
	var hover any
	if err := c.Call("textDocument/hover", lsptest.Pos(web, 1, 12), &hover); err != nil {
		t.Fatal(err)
	}
	c.Open(pf, "ruby", files["Puppetfile"])
	c.Edit(pf, 2, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 0}, End: lsptest.Position{Line: 1, Character: 0}}, "mod 'puppet/letsencrypt', '9.2.0'\n")
	got := c.WaitDiagnostics(web, func(ds []lsptest.Diagnostic) bool {
		return severityOf(ds, "letsencrypt") == 4
	})
	if severityOf(got, "nginx") != 4 {
		t.Errorf("after the Puppetfile edit: %+v", got)
	}
}

// A client that can register file watchers is asked to report every file
// changed on disk; a file created behind the editor's back (a module
// r10k installed) is then analysed, as a fresh server would.
func TestWatchedFiles(t *testing.T) {
	root := t.TempDir()
	site := filepath.Join(root, "manifests", "site.pp")
	if err := os.MkdirAll(filepath.Dir(site), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(site, []byte("include web\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	caps := map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
	c, _ := lsptest.Start(t, []analysis.System{puppet.New()}, root, caps)
	uri := source.PathToURI(site)
	c.Open(uri, "puppet", "include web\n")
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 1 })
	registered := false
	for wait := 0; !registered && wait < 200; wait++ {
		for _, m := range c.Received() {
			registered = registered || m == "client/registerCapability"
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !registered {
		t.Errorf("no client/registerCapability; received %v", c.Received())
	}
	mod := filepath.Join(root, "modules", "web", "manifests", "init.pp")
	if err := os.MkdirAll(filepath.Dir(mod), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mod, []byte("class web { notify { 'hi': } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Changes in .git say nothing; the module's file does.
	c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{
		{"uri": source.PathToURI(filepath.Join(root, ".git", "index")), "type": 2},
		{"uri": source.PathToURI(mod), "type": 1},
	}})
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 0 })
}

// def.json beside a CFEngine policy is read, not owned: editing it
// analyses the policy again (its augments add inputs, classes and
// variables), as a fresh server would.
func TestEditOfDefJSONReanalyses(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"promises.cf": "body common control\n{\n  bundlesequence => { \"main\" };\n}\nbundle agent main\n{\n  methods:\n    \"helper\";\n}\n",
		"lib.cf":      "bundle agent helper\n{\n  reports:\n    \"helping\";\n}\n",
		"def.json":    "{}\n",
	}
	writeFiles(t, root, files)
	c, _ := lsptest.Start(t, []analysis.System{cfengine.New()}, root, nil)
	main := source.PathToURI(filepath.Join(root, "promises.cf"))
	def := source.PathToURI(filepath.Join(root, "def.json"))
	c.Open(main, "cfengine3", files["promises.cf"])
	missing := func(ds []lsptest.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, "bundle 'helper'") {
				return true
			}
		}
		return false
	}
	c.WaitDiagnostics(main, missing)
	c.Open(def, "json", files["def.json"])
	c.Edit(def, 2, lsptest.Range{Start: lsptest.Position{Line: 0, Character: 1}, End: lsptest.Position{Line: 0, Character: 1}}, ` "inputs": ["lib.cf"] `)
	c.WaitDiagnostics(main, func(ds []lsptest.Diagnostic) bool { return !missing(ds) })
}

// A cookbook's metadata.rb names it: a Policyfile's run-list entry leads
// to the recipe of the folder whose metadata has that name. Renaming the
// cookbook there is read at once.
func TestEditOfMetadataReanalyses(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"Policyfile.rb":      "name 'web'\ndefault_source :supermarket\nrun_list 'web::default'\nmetadata\n",
		"metadata.rb":        "name 'web'\nversion '1.0.0'\n",
		"recipes/default.rb": "package 'nginx'\n",
	}
	writeFiles(t, root, files)
	c, _ := lsptest.Start(t, []analysis.System{chef.New()}, root, nil)
	pf := source.PathToURI(filepath.Join(root, "Policyfile.rb"))
	md := source.PathToURI(filepath.Join(root, "metadata.rb"))
	c.Open(pf, "ruby", files["Policyfile.rb"])
	c.Settle(pf)
	def := func() []lsptest.Location {
		var locs []lsptest.Location
		if err := c.Call("textDocument/definition", lsptest.Pos(pf, 2, 12), &locs); err != nil {
			t.Fatal(err)
		}
		return locs
	}
	if locs := def(); len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "recipes/default.rb") {
		t.Fatalf("definition of web::default before the edit = %+v, want recipes/default.rb", locs)
	}
	c.Open(md, "ruby", files["metadata.rb"])
	c.Edit(md, 2, lsptest.Range{Start: lsptest.Position{Line: 0, Character: 6}, End: lsptest.Position{Line: 0, Character: 9}}, "other")
	c.Settle(pf)
	deadline := time.Now().Add(10 * time.Second)
	for {
		locs := def()
		if len(locs) == 0 || !strings.HasSuffix(locs[0].URI, "recipes/default.rb") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("definition of web::default once metadata.rb names the cookbook 'other' = %+v, want no recipe", locs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
