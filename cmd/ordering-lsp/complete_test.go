package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Half-typed, a manifest does not parse (`Package['ng` opens a string
// that runs to the end of the file): its own resources are still offered,
// from the analysis of the text before the edit.
func TestCompletionWhileTheFileDoesNotParse(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "site.pp")
	text := "package { 'nginx': }\npackage { 'ntp': }\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	uri := source.PathToURI(p)
	c.Open(uri, "puppet", text)
	var h any
	if err := c.Call("textDocument/hover", lsptest.Pos(uri, 0, 12), &h); err != nil {
		t.Fatal(err)
	}
	typed := "file { '/x': require => Package['ng"
	// typed above the packages: the open string swallows them
	c.Edit(uri, 2, lsptest.Range{}, typed+"\n")
	var list struct {
		Items []struct {
			Label    string `json:"label"`
			TextEdit struct {
				Range   lsptest.Range `json:"range"`
				NewText string        `json:"newText"`
			} `json:"textEdit"`
		} `json:"items"`
	}
	if err := c.Call("textDocument/completion", lsptest.Pos(uri, 0, len(typed)), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Label != "nginx" {
		t.Fatalf("completion = %+v, want nginx alone", list.Items)
	}
	want := lsptest.Range{Start: lsptest.Position{Line: 0, Character: len(typed) - 2}, End: lsptest.Position{Line: 0, Character: len(typed)}}
	if e := list.Items[0].TextEdit; e.Range != want || e.NewText != "nginx" {
		t.Errorf("text edit = %+v, want %q over %+v", e, "nginx", want)
	}
}

// The list carries no documentation; resolving an item gives its target's
// hover text.
func TestCompletionResolveGivesTheTargetsHover(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "site.pp")
	text := "package { 'nginx': }\nservice { 'nginx': require => Package[''] }\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	uri := source.PathToURI(p)
	c.Open(uri, "puppet", text)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := c.Call("textDocument/completion", lsptest.Pos(uri, 1, 39), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0]["documentation"] != nil {
		t.Fatalf("items = %v, want nginx without documentation", list.Items)
	}
	var resolved struct {
		Label         string `json:"label"`
		Documentation struct {
			Value string `json:"value"`
		} `json:"documentation"`
	}
	if err := c.Call("completionItem/resolve", list.Items[0], &resolved); err != nil {
		t.Fatal(err)
	}
	if resolved.Label != "nginx" || !strings.Contains(resolved.Documentation.Value, `**Package\[nginx\]**`) || !strings.Contains(resolved.Documentation.Value, "Runs **1st of 2**") {
		t.Errorf("resolved = %+v", resolved)
	}
}

// ordering/why: from the declaration under the cursor to another, by
// reference; the answer names each edge and where it was written.
func TestWhyRequest(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "site.pp")
	text := "package { 'nginx': }\nfile { '/etc/x': require => Package['nginx'] }\nservice { 'nginx': subscribe => File['/etc/x'] }\nnotify { 'n': }\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	uri := source.PathToURI(p)
	c.Open(uri, "puppet", text)
	var ans struct {
		Relation, Summary string
		Path              []struct {
			From, To, Reason string
			Location         lsptest.Location
		}
	}
	params := lsptest.Pos(uri, 2, 12)
	params["other"] = "Package[nginx]"
	if err := c.Call("ordering/why", params, &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Relation != "after" || ans.Summary != "Service[nginx] runs after Package[nginx]:" || len(ans.Path) != 2 ||
		ans.Path[0].From != "Package[nginx]" || ans.Path[0].Reason != "require" || ans.Path[0].Location.Range.Start != (lsptest.Position{Line: 1, Character: 28}) ||
		ans.Path[1].To != "Service[nginx]" || ans.Path[1].Reason != "subscribe" {
		t.Errorf("why = %+v", ans)
	}
	params["other"] = "Notify[n]"
	if err := c.Call("ordering/why", params, &ans); err != nil || ans.Relation != "independent" || len(ans.Path) != 0 {
		t.Errorf("independent: %v %+v", err, ans)
	}
	params["other"] = "Notify[nope]"
	if err := c.Call("ordering/why", params, &ans); err == nil || !strings.Contains(err.Error(), "declares nothing called Notify[nope]") {
		t.Errorf("unknown: %v", err)
	}
}
