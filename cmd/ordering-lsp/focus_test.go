package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/controlrepo"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestEditsMatchFreshAnalysis edits profile::base of a generated control
// repository (a class every run includes) at random and, after each edit,
// checks that what the server publishes for every file, once it is done
// (first the edited file from a focused analysis, then everything from
// the complete one, restoring unchanged runs from its cache), is what a
// fresh analysis of the same texts says.
func TestEditsMatchFreshAnalysis(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	basePath, err := controlrepo.Write(root, controlrepo.Shape{Modules: 12, Profiles: 6, Roles: 15, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(basePath)
	uri := source.PathToURI(basePath)
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	c.Open(uri, "puppet", string(orig))
	end := strings.LastIndexByte(string(orig), '}')
	mutations := []string{
		"",
		"  notify { 'probe': require => File['/nonexistent'] }\n",
		"  File['/etc/base/f39'] -> File['/etc/base/f0']\n",                   // closes a cycle through the 40 files
		"  file { '/etc/base/f3': ensure => absent }\n",                       // duplicate declaration
		"  include no_such_module::thing\n",                                   // unknown class
		"  if $facts['x'] { File['/etc/base/f2'] -> File['/etc/base/f1'] }\n", // a conditional cycle
	}
	rng := rand.New(rand.NewSource(7))
	for k := 0; k < 12; k++ {
		var add strings.Builder
		for _, i := range rng.Perm(len(mutations))[:1+rng.Intn(2)] {
			add.WriteString(mutations[i])
		}
		text := string(orig[:end]) + add.String() + string(orig[end:])
		c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": k + 2},
			"contentChanges": []any{map[string]any{"text": text}},
		})
		if err := c.Call("ordering/order", map[string]any{"uri": uri}, nil); err != nil {
			t.Fatal(err)
		}
		want := freshDiagnostics(t, root, basePath, text)
		var got map[string][]string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			got = map[string][]string{}
			for u, ds := range c.AllDiagnostics() {
				for _, d := range ds {
					got[u] = append(got[u], fmt.Sprintf("%d %s", d.Severity, d.Message))
				}
				sort.Strings(got[u])
			}
			if fmt.Sprint(got) == fmt.Sprint(want) {
				break
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("edit %d (%q): the server's diagnostics differ from a fresh analysis\n--- server\n%v\n--- fresh\n%v", k, add.String(), got, want)
		}
	}
}

func freshDiagnostics(t *testing.T, root, path, text string) map[string][]string {
	ws := source.NewWorkspace(root)
	ws.SetOverlay(source.NewFile(source.PathToURI(path), path, []byte(text)))
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	out := map[string][]string{}
	for _, r := range analysis.AnalyzeAll(newSystems(), in) {
		for _, d := range r.Diags {
			msg := d.Message
			if len(msg) > 4000 {
				t.Fatalf("message too long for this test: %.80s", msg)
			}
			out[d.At.URI] = append(out[d.At.URI], fmt.Sprintf("%d %s", d.Severity, msg))
		}
	}
	for u := range out {
		sort.Strings(out[u])
	}
	return out
}
