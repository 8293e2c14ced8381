package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestTokensCorpus (opt-in) highlights every file of a tree the systems
// own, checks the tokens as FuzzTokens does (after an edit too), and
// reports how long it took: per system, and for the biggest files, cold
// (a fresh system), again (same text), after a one-line edit, and as the
// client sees it (semanticTokens/full through the server, the file alone
// in its workspace):
//
//	ORDERING_TOKENS_CORPUS=/path/to/tree go test -count=1 -run TestTokensCorpus -v ./cmd/ordering-lsp/
func TestTokensCorpus(t *testing.T) {
	root := os.Getenv("ORDERING_TOKENS_CORPUS")
	if root == "" {
		t.Skip("ORDERING_TOKENS_CORPUS not set")
	}
	type file struct {
		path string
		sys  int
		size int
	}
	systems := newSystems()
	var files []file
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		head := func() []byte {
			b, _ := os.ReadFile(p)
			return b[:min(len(b), 4096)]
		}
		for i, s := range systems {
			if _, ok := s.(analysis.Tokenizer); ok && s.Owns(p, head) {
				info, _ := d.Info()
				files = append(files, file{p, i, int(info.Size())})
				break
			}
		}
		return nil
	})
	perSys := map[string]time.Duration{}
	perCount := map[string]int{}
	perBytes := map[string]int{}
	for _, f := range files {
		text, err := os.ReadFile(f.path)
		if err != nil || len(text) > source.MaxFileSize {
			continue
		}
		sys := systems[f.sys]
		tk := sys.(analysis.Tokenizer)
		sf := source.FileFromPath(f.path, text)
		start := time.Now()
		analysis.FlattenTokens(tk.Tokens(sf), text)
		perSys[sys.Name()] += time.Since(start)
		perCount[sys.Name()]++
		perBytes[sys.Name()] += len(text)
		idx := f.sys
		analysistest.CheckTokens(t, tk, func() analysis.Tokenizer { return newSystems()[idx].(analysis.Tokenizer) }, sf, analysistest.EditOf(text))
	}
	names := make([]string, 0, len(perSys))
	for n := range perSys {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%s: %d files, %.1f MB, tokens in %v (cold, one system for all)", n, perCount[n], float64(perBytes[n])/1e6, perSys[n].Round(time.Millisecond))
	}
	// the biggest file of each system
	sort.Slice(files, func(i, j int) bool { return files[i].size > files[j].size })
	done := map[int]bool{}
	for _, f := range files {
		if done[f.sys] {
			continue
		}
		done[f.sys] = true
		text, _ := os.ReadFile(f.path)
		timeTokens(t, f.path, f.sys, text)
	}
}

func timeTokens(t *testing.T, path string, idx int, text []byte) {
	median := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	sf := source.FileFromPath(path, text)
	var cold, again, edit []time.Duration
	var n int
	for range 7 {
		tk := newSystems()[idx].(analysis.Tokenizer)
		s := time.Now()
		n = len(analysis.FlattenTokens(tk.Tokens(sf), text))
		cold = append(cold, time.Since(s))
		s = time.Now()
		analysis.FlattenTokens(tk.Tokens(sf), text)
		again = append(again, time.Since(s))
		// a one-line edit in the middle
		mid := len(text) / 2
		for mid < len(text) && text[mid] != '\n' {
			mid++
		}
		edited := append(append(append([]byte(nil), text[:mid]...), []byte("\n# edited")...), text[mid:]...)
		s = time.Now()
		analysis.FlattenTokens(tk.Tokens(source.FileFromPath(path, edited)), edited)
		edit = append(edit, time.Since(s))
	}
	// through the server, as a client sees it
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := lsptest.StartFresh(t, newSystems, dir, nil)
	uri := source.PathToURI(p)
	c.Open(uri, "", string(text))
	var lsp []time.Duration
	var ints int
	for range 7 {
		var res struct {
			Data []int `json:"data"`
		}
		s := time.Now()
		if err := c.Call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &res); err != nil {
			t.Fatal(err)
		}
		lsp = append(lsp, time.Since(s))
		ints = len(res.Data)
	}
	t.Logf("%s (%d KB, %d tokens): cold %v, same text %v, after a one-line edit %v; semanticTokens/full through the server %v (%d tokens sent); medians of 7",
		path, len(text)/1024, n, median(cold).Round(10*time.Microsecond), median(again).Round(10*time.Microsecond),
		median(edit).Round(10*time.Microsecond), median(lsp).Round(10*time.Microsecond), ints/5)
	_ = fmt.Sprint
}
