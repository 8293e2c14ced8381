package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// counting owns *.other files and counts its analyses.
type counting struct{ n *atomic.Int32 }

func (counting) Name() string           { return "other" }
func (counting) Flags() []analysis.Flag { return nil }
func (counting) Owns(p string, _ func() []byte) bool {
	return strings.HasSuffix(p, ".other")
}
func (c counting) Analyze(*analysis.Request) *analysis.Result {
	c.n.Add(1)
	return &analysis.Result{}
}

// An edit re-analyses only the system that owns the edited file.
func TestEditReanalysesOnlyItsSystem(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "x.other"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{toy{}, counting{&n}}, root, nil)
	uri := source.PathToURI(filepath.Join(root, "a.toy"))
	c.Open(uri, "toy", "step a\na after b\n")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	before := n.Load()
	for v := 2; v < 7; v++ {
		c.Edit(uri, v, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 8}, End: lsptest.Position{Line: 1, Character: 9}}, "a")
		c.Edit(uri, v, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 8}, End: lsptest.Position{Line: 1, Character: 9}}, "b")
	}
	c.Edit(uri, 8, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 8}, End: lsptest.Position{Line: 1, Character: 9}}, "a")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 && strings.Contains(d[0].Message, "cycle") })
	if before < 1 || n.Load() != before {
		t.Errorf("the other system ran %d times before the edits and %d after; edits to .toy files must not re-run it", before, n.Load())
	}
}

// slow owns *.slow files and blocks its analysis until released.
type slow struct{ release chan struct{} }

func (slow) Name() string           { return "slow" }
func (slow) Flags() []analysis.Flag { return nil }
func (slow) Owns(p string, _ func() []byte) bool {
	return strings.HasSuffix(p, ".slow")
}
func (s slow) Analyze(req *analysis.Request) *analysis.Result {
	for _, f := range req.Files {
		if strings.Contains(string(f.Text), "block") {
			select {
			case <-s.release:
			case <-req.Ctx.Done():
			}
		}
	}
	return &analysis.Result{}
}

// While a long analysis runs for one file, requests on documents that
// did not change are answered from the previous analysis at once.
func TestRequestsOnUnchangedDocumentsDoNotWait(t *testing.T) {
	root := t.TempDir()
	s := slow{release: make(chan struct{})}
	defer close(s.release)
	c, _ := lsptest.Start(t, []analysis.System{toy{}, s}, root, nil)
	uri := source.PathToURI(filepath.Join(root, "a.toy"))
	c.Open(uri, "toy", "step a\na after b\n")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })

	c.Open(source.PathToURI(filepath.Join(root, "b.slow")), "slow", "block")
	done := make(chan error, 1)
	go func() {
		var hover map[string]any
		done <- c.Call("textDocument/hover", lsptest.Pos(uri, 0, 5), &hover)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("hover on an unchanged document waited for an unrelated analysis")
	}
}

// Issue 25: a soak of 300 random edits on operations-puppet's
// profile/manifests/base.pp (seed 2) ended with 4 diagnostics where a fresh
// server on "the same final text" gave 6. The texts were not the same: the
// soak client sent Python string indexes (code points) as columns without
// negotiating an encoding, and after an inserted 😀 (one code point, two
// UTF-16 units) each later edit on that line landed one character to the
// left of where the client meant. Edit 282 of that run deleted columns
// 22-25 of `        sourc😀e   => 'puppet:///module~>s/...'`: the client
// meant `pup`, the server (rightly, in UTF-16) deleted `'pu`, and the lost
// quote swallowed two later syntax errors. The server must read columns in
// the negotiated encoding, always: UTF-16 units when the client offers
// nothing, bytes when it chose UTF-8.
func TestEditColumnsAfterAstralCharacter(t *testing.T) {
	const line = "        sourc😀e   => 'puppet:///module~>s/profile/motd/check_restarts.sh',"
	for _, tc := range []struct {
		name       string
		caps       map[string]any
		start, end int // the columns of `pup` in line, in the negotiated encoding
		want       string
	}{
		// What a client meaning `pup` sends: 8 spaces, sourc, 😀 (2 units / 4 bytes), e, 3 spaces, =>, space, quote.
		{"utf-16", nil, 23, 26, "        sourc😀e   => 'pet:///module~>s/profile/motd/check_restarts.sh',"},
		{"utf-8", map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-8"}}}, 26, 29,
			"        sourc😀e   => 'pet:///module~>s/profile/motd/check_restarts.sh',"},
		// What the soak sent (code points 22-25) means `'pu` in UTF-16: the quote goes.
		{"utf-16 given code points", nil, 22, 25, "        sourc😀e   => ppet:///module~>s/profile/motd/check_restarts.sh',"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			c, _ := lsptest.Start(t, []analysis.System{toy{}}, root, tc.caps)
			uri := source.PathToURI(filepath.Join(root, "a.toy"))
			c.Open(uri, "toy", "step a\n"+line+"\n")
			c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
			c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 1, Character: tc.start}, End: lsptest.Position{Line: 1, Character: tc.end}}, "")
			want := "cannot read: " + tc.want
			got := c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 && d[0].Message != "cannot read: "+line })
			if got[0].Message != want {
				t.Errorf("after the edit the server holds\n%q\nwant\n%q", got[0].Message, want)
			}
			// Incremental = from scratch: a fresh server on the intended text says the same.
			fresh, _ := lsptest.Start(t, []analysis.System{toy{}}, t.TempDir(), tc.caps)
			furi := source.PathToURI(filepath.Join(root, "b.toy"))
			fresh.Open(furi, "toy", "step a\n"+tc.want+"\n")
			f := fresh.WaitDiagnostics(furi, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
			if f[0].Message != got[0].Message || f[0].Range != got[0].Range {
				t.Errorf("incremental %+v, fresh %+v", got[0], f[0])
			}
		})
	}
}

// The protocol library stores every document URI in vscode-uri's canonical
// form (`file:///w/a%2Cb/x.toy` for a client's `file:///w/a,b/x.toy`, as
// VS Code sends it anyway), while the workspace finds files by path. A
// document under a folder whose name holds , ; = + & @ : was then never
// found as open: the analysis read the disk, and edits changed nothing.
func TestOpenDocumentUnderReservedCharacters(t *testing.T) {
	for _, dir := range []string{"a,b", "c++", "x@2", "k=v", "p;q", "m&n", "d:e"} {
		t.Run(dir, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), dir)
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "a.toy")
			if err := os.WriteFile(path, []byte("step a\non disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, _ := lsptest.Start(t, []analysis.System{toy{}}, root, nil)
			sent := source.PathToURI(path)
			canon := string(uri.File(path)) // what the server keys the document by, and publishes
			c.Open(sent, "toy", "step a\nin the editor\n")
			ok := func(want string) func([]lsptest.Diagnostic) bool {
				return func(d []lsptest.Diagnostic) bool { return len(d) == 1 && d[0].Message == want }
			}
			c.WaitDiagnostics(canon, ok("cannot read: in the editor"))
			c.Edit(sent, 2, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 0}, End: lsptest.Position{Line: 1, Character: 2}}, "still")
			c.WaitDiagnostics(canon, ok("cannot read: still the editor"))
		})
	}
}
