package lsp_test

import (
	"context"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

type pipes struct {
	io.Reader
	io.WriteCloser
}

// start runs a server with the toy system on in-memory pipes and returns
// a client connected to it, initialized with a workspace folder.
func start(t *testing.T, root string, caps map[string]any) (*lsptest.Client, chan int, map[string]any) {
	t.Helper()
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	srv := lsp.New([]analysis.System{toy{}}, log.New(io.Discard, "", 0))
	done := make(chan int, 1)
	go func() { done <- srv.Serve(context.Background(), pipes{sr, sw}) }()
	c := lsptest.New(t, cr, cw)
	t.Cleanup(c.Close)
	if caps == nil {
		caps = map[string]any{}
	}
	var init map[string]any
	params := map[string]any{"processId": nil, "rootUri": source.PathToURI(root), "capabilities": caps,
		"initializationOptions": map[string]any{"inlayHints": map[string]any{"enabled": true}}}
	if err := c.Call("initialize", params, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.Notify("initialized", map[string]any{})
	return c, done, init
}

func TestServerEndToEnd(t *testing.T) {
	root := t.TempDir()
	disk := filepath.Join(root, "disk.toy")
	if err := os.WriteFile(disk, []byte("step d\nd after nowhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, done, init := start(t, root, nil)
	caps := init["capabilities"].(map[string]any)
	if caps["positionEncoding"] != "utf-16" {
		t.Errorf("positionEncoding = %v, want utf-16 when the client offers nothing", caps["positionEncoding"])
	}

	// A file on disk that is never opened is analysed too.
	diskURI := source.PathToURI(disk)
	ds := c.WaitDiagnostics(diskURI, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	if ds[0].Message != `Could not find step "nowhere"` || ds[0].Range.Start != (lsptest.Position{Line: 1, Character: 8}) || len(ds[0].Tags) != 1 || ds[0].Tags[0] != 1 {
		t.Errorf("disk file diagnostic = %+v", ds[0])
	}

	// A cycle: every node on it gets an error, each with one related
	// location per edge.
	uri := source.PathToURI(filepath.Join(root, "a.toy"))
	c.Open(uri, "toy", "step a\nstep b\nstep c\na after b\nb after a\nc after a\n")
	ds = c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 2 })
	for _, d := range ds {
		if !strings.HasPrefix(d.Message, "Found 1 dependency cycle: (Step[a] => Step[b] => Step[a])") || len(d.Related) != 2 || d.Source != "toy" || d.Code != "cycle" {
			t.Errorf("cycle diagnostic = %+v", d)
		}
	}
	if got := ds[0].Related[0].Location.Range.Start; got != (lsptest.Position{Line: 4, Character: 8}) {
		t.Errorf("first related location at %+v, want the `a` of `b after a` (4:8)", got)
	}

	// Fix the cycle with an incremental edit that deletes line 4 (`b after a`).
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 4, Character: 0}, End: lsptest.Position{Line: 5, Character: 0}}, "")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 0 })

	// Hover on the declaration of c: position and what it waits for.
	var hover struct {
		Contents struct {
			Kind, Value string
		}
		Range lsptest.Range
	}
	if err := c.Call("textDocument/hover", lsptest.Pos(uri, 2, 5), &hover); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Step\\[c\\]**", "Runs **3rd of 3**", "Runs after:", "`Step[a]` — after", "toy: yes"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}
	if hover.Contents.Kind != "markdown" || hover.Range.Start != (lsptest.Position{Line: 2, Character: 5}) {
		t.Errorf("hover kind/range = %q %+v", hover.Contents.Kind, hover.Range)
	}

	// Definition from the reference `a` in `c after a` (line 4 now).
	var locs []lsptest.Location
	if err := c.Call("textDocument/definition", lsptest.Pos(uri, 4, 8), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].URI != uri || locs[0].Range.Start != (lsptest.Position{Line: 0, Character: 5}) {
		t.Errorf("definition = %+v", locs)
	}

	// References of a, from its declaration, declaration included.
	var refs []lsptest.Location
	params := lsptest.Pos(uri, 0, 5)
	params["context"] = map[string]any{"includeDeclaration": true}
	if err := c.Call("textDocument/references", params, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 {
		t.Errorf("references of a = %+v, want declaration + `c after a`", refs)
	}

	// Outline, inlay hints, and the two custom requests the editor views use.
	var syms []map[string]any
	if err := c.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms); err != nil {
		t.Fatal(err)
	}
	if len(syms) != 3 || syms[0]["name"] != "Step[a]" || syms[0]["detail"] != "step · runs 2nd of 3" {
		t.Errorf("documentSymbol = %v", syms)
	}
	var hints []map[string]any
	if err := c.Call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": lsptest.Range{End: lsptest.Position{Line: 10}}}, &hints); err != nil {
		t.Fatal(err)
	}
	if len(hints) != 3 || hints[0]["label"] != "#2/3" {
		t.Errorf("inlay hints = %v", hints)
	}
	var graph struct {
		Nodes []struct {
			Label    string
			Position *int
		}
		Edges []struct{ From, To int }
	}
	if err := c.Call("ordering/graph", map[string]any{"uri": uri}, &graph); err != nil {
		t.Fatal(err)
	}
	if len(graph.Nodes) != 3 || graph.Nodes[0].Label != "Step[b]" || len(graph.Edges) != 2 {
		t.Errorf("ordering/graph = %+v", graph)
	}
	var order struct {
		Runs []struct {
			Name  string
			Steps []struct{ Label string }
		}
	}
	if err := c.Call("ordering/order", map[string]any{"uri": uri}, &order); err != nil {
		t.Fatal(err)
	}
	if len(order.Runs) != 1 || len(order.Runs[0].Steps) != 3 {
		t.Errorf("ordering/order = %+v", order)
	}

	// Bad params get an error answer and the session goes on.
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": 42}, nil); err == nil {
		t.Error("hover with bad params: no error")
	}
	if err := c.Call("no/such/method", nil, nil); err == nil {
		t.Error("unknown method: no error")
	}
	if err := c.Call("textDocument/hover", lsptest.Pos(uri, 0, 5), &hover); err != nil {
		t.Errorf("hover after bad requests: %v", err)
	}

	// Closing an untitled buffer clears its diagnostics.
	untitled := "untitled:Untitled-1"
	c.Open(untitled, "toy", "step x\nx after y\n")
	c.WaitDiagnostics(untitled, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": untitled}})
	c.WaitDiagnostics(untitled, func(d []lsptest.Diagnostic) bool { return len(d) == 0 })

	if err := c.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("exit", nil)
	if code := <-done; code != 0 {
		t.Errorf("exit code %d after shutdown, want 0", code)
	}
}

// Positions are UTF-16 code units unless the client negotiates UTF-8.
func TestServerPositionEncodings(t *testing.T) {
	text := "step é😀x\nstep b\nb after é😀x\n"
	for _, tc := range []struct {
		offer []string
		want  string
		col   int // column of `é😀x` in `b after é😀x` (both lines place it after 8 bytes/units of ASCII)
		end   int
	}{
		{nil, "utf-16", 8, 12},                        // é = 1 unit, 😀 = 2 units, x = 1
		{[]string{"utf-8", "utf-16"}, "utf-8", 8, 15}, // é = 2 bytes, 😀 = 4 bytes, x = 1
	} {
		root := t.TempDir()
		caps := map[string]any{}
		if tc.offer != nil {
			caps["general"] = map[string]any{"positionEncodings": tc.offer}
		}
		c, _, init := start(t, root, caps)
		if got := init["capabilities"].(map[string]any)["positionEncoding"]; got != tc.want {
			t.Errorf("offer %v: positionEncoding %v, want %v", tc.offer, got, tc.want)
		}
		uri := source.PathToURI(filepath.Join(root, "u.toy"))
		c.Open(uri, "toy", text)
		var locs []lsptest.Location
		// Ask for the definition at the last character of the reference.
		if err := c.Call("textDocument/definition", lsptest.Pos(uri, 2, tc.end-1), &locs); err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 {
			t.Fatalf("%s: definition = %+v", tc.want, locs)
		}
		want := lsptest.Range{Start: lsptest.Position{Line: 0, Character: 5}, End: lsptest.Position{Line: 0, Character: tc.end - 3}}
		if locs[0].Range != want {
			t.Errorf("%s: definition range %+v, want %+v", tc.want, locs[0].Range, want)
		}
	}
}
