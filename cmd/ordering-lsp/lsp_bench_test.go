package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

type pipeRW struct {
	io.Reader
	io.WriteCloser
}

// genChainManifest writes a manifest of about `lines` lines: file resources
// in a require chain, one resource per 5 lines.
func genChainManifest(lines int) string {
	var b strings.Builder
	n := lines / 5
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "file { '/srv/app/f%d':\n  ensure  => file,\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "  require => File['/srv/app/f%d'],\n", i-1)
		} else {
			b.WriteString("  mode    => '0644',\n")
		}
		b.WriteString("  owner   => 'root',\n}\n")
	}
	return b.String()
}

// BenchmarkServerEditToDiagnostics measures what a user feels: from a
// didChange of one line in a 10,000-line manifest to the diagnostics that
// edit produces arriving at the client. "missing-target" toggles a
// reference to a resource that does not exist (one diagnostic);
// "cycle-2000" toggles a relationship that closes a cycle through all
// 2,000 resources (2,000 diagnostics, each with the whole path).
func BenchmarkServerEditToDiagnostics(b *testing.B) {
	b.Run("missing-target", func(b *testing.B) { benchEdit(b, "  require => File['/srv/app/nope'],\n") })
	b.Run("cycle-2000", func(b *testing.B) { benchEdit(b, fmt.Sprintf("  require => File['/srv/app/f%d'],\n", 10000/5-1)) })
	b.Run("comment-top", benchCommentTop)
}

// benchCommentTop: a comment line typed at the top of the same manifest,
// then taken away, with a missing target near its end: every edit moves
// that diagnostic by a line and changes nothing else.
func benchCommentTop(b *testing.B) {
	root, c := benchServer(b)
	text := genChainManifest(10000) + "notify { 'x': require => File['/srv/app/nope'] }\n"
	uri := source.PathToURI(filepath.Join(root, "big.pp"))
	c.Open(uri, "puppet", text)
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) > 0 })
	top := lsptest.Range{}
	comment := lsptest.Range{End: lsptest.Position{Line: 1}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := c.Publishes(uri)
		if i%2 == 0 {
			c.Edit(uri, i+2, top, "# a comment typed at the top\n")
		} else {
			c.Edit(uri, i+2, comment, "")
		}
		ds := c.WaitPublish(uri, n)
		if want := 10000 + 1 - i%2; len(ds) != 1 || ds[0].Range.Start.Line != want {
			b.Fatalf("edit %d: %+v, want one diagnostic on line %d", i, ds, want)
		}
	}
}

// benchServer starts a server over pipes on an empty folder and a client
// that has initialized it.
func benchServer(b *testing.B) (string, *lsptest.Client) {
	root := b.TempDir()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	srv := lsp.New(newSystems(), log.New(io.Discard, "", 0))
	go srv.Serve(context.Background(), pipeRW{sr, sw})
	c := lsptest.New(b, cr, cw)
	b.Cleanup(c.Close)
	if err := c.Call("initialize", map[string]any{"rootUri": source.PathToURI(root), "capabilities": map[string]any{}}, nil); err != nil {
		b.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	return root, c
}

func benchEdit(b *testing.B, broken string) {
	root, c := benchServer(b)
	text := genChainManifest(10000)
	// Line 2 is `  mode    => '0644',`; the benchmark replaces it whole.
	line2 := lsptest.Range{Start: lsptest.Position{Line: 2}, End: lsptest.Position{Line: 3}}
	cycle := broken
	plain := "  mode    => '0644',\n"
	// Open with the cycle so the first analysis publishes something.
	text = strings.Replace(text, plain, cycle, 1)
	uri := source.PathToURI(filepath.Join(root, "big.pp"))
	c.Open(uri, "puppet", text)
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) > 0 })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := c.Publishes(uri)
		next := plain
		if i%2 == 1 {
			next = cycle
		}
		c.Edit(uri, i+2, line2, next)
		ds := c.WaitPublish(uri, n)
		if (i%2 == 1) != (len(ds) > 0) {
			b.Fatalf("edit %d: %d diagnostics", i, len(ds))
		}
	}
}
