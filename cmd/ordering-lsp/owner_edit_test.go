package main

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestEditChangesOwner: CFEngine, Chef and Rudder claim a file by its
// first bytes, so an edit can make an open document stop (or start)
// being policy: a `.cf` whose header is broken and whose braces look like
// a template's (`{{`) is someone else's file. The server follows the
// open text as a fresh server would, not the owner it found when it
// walked the workspace; closed, the file is the disk's again.
func TestEditChangesOwner(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	policy := "bundle agent main\n{\n  reports:\n      \"hello\"\n}\n" // a missing ';': one error
	for name, text := range map[string]string{"a.cf": policy} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := source.PathToURI(filepath.Join(root, "a.cf"))
	c, _ := lsptest.Start(t, newSystems(), root, nil)
	c.Open(u, "cfengine", policy)
	texts := map[string]string{u: policy}
	rng := rand.New(rand.NewSource(1))
	equivCompare(t, c, root, []string{u}, texts, rng, 0)
	steps := []struct {
		rng  lsptest.Range
		text string
	}{
		{lsptest.Range{Start: lsptest.Position{Line: 0, Character: 3}, End: lsptest.Position{Line: 0, Character: 3}}, "'"}, // bun'dle: no header, a bare '{' still claims it
		{lsptest.Range{Start: lsptest.Position{Line: 1, Character: 0}, End: lsptest.Position{Line: 1, Character: 0}}, "{"}, // {{: a template's, not policy
		{lsptest.Range{Start: lsptest.Position{Line: 0, Character: 3}, End: lsptest.Position{Line: 0, Character: 4}}, ""},  // bundle again: policy
		{lsptest.Range{Start: lsptest.Position{Line: 0, Character: 3}, End: lsptest.Position{Line: 0, Character: 3}}, "'"}, // and not
	}
	for k, s := range steps {
		c.Edit(u, k+2, s.rng, s.text)
		f := source.NewFile(u, "", []byte(texts[u]))
		a, b := f.Offset(source.Position{Line: s.rng.Start.Line, Col: s.rng.Start.Character}, source.UTF16), f.Offset(source.Position{Line: s.rng.End.Line, Col: s.rng.End.Character}, source.UTF16)
		texts[u] = texts[u][:a] + s.text + texts[u][b:]
		equivCompare(t, c, root, []string{u}, texts, rng, k+1)
	}
	// Closed, the file is the disk's again: policy, with its error.
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	fresh, _ := lsptest.Start(t, newSystems(), root, nil)
	var got, want string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, want = diagDump(c.AllDiagnostics()), diagDump(fresh.AllDiagnostics())
		if got == want && want != "" {
			break
		}
	}
	if got != want || want == "" {
		t.Errorf("closed, the diagnostics differ from a fresh server's\n--- server\n%s\n--- fresh\n%s", got, want)
	}
}
