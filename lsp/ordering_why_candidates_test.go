package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The "Why does this run before…" picker opens on candidates ranked from
// the declaration under the cursor: what it directly waits for and what
// directly waits for it, then further along the chains, then the rest of
// the file; and it names "this".
func TestWhyCandidatesNearestFirst(t *testing.T) {
	root := t.TempDir()
	// a -> b -> c -> d, and e unrelated
	text := "step a\nstep b\nstep c\nstep d\nstep e\nb after a\nc after b\nd after c\n"
	p := filepath.Join(root, "w.toy")
	os.WriteFile(p, []byte(text), 0o644)
	c, _ := lsptest.Start(t, []analysis.System{toy{}}, root, nil)
	uri := source.PathToURI(p)
	var ans struct {
		This       string
		Candidates []struct{ Ref, Detail string }
	}
	if err := c.Call("ordering/whyCandidates", lsptest.Pos(uri, 2, 5), &ans); err != nil { // on c
		t.Fatal(err)
	}
	var got []string
	for _, x := range ans.Candidates {
		got = append(got, x.Ref+" ("+x.Detail+")")
	}
	want := []string{
		"Step[b] (runs before it, directly (after))",
		"Step[d] (runs after it, directly (after))",
		"Step[a] (runs before it, through 2 relationships)",
		"Step[e] (same file)",
	}
	if ans.This != "Step[c]" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("this = %q, candidates:\n%s\nwant:\n%s", ans.This, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
