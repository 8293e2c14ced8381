package lsp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// rawSession talks to the server with hand-written frames, for input no
// well-behaved client would send.
type rawSession struct {
	t  *testing.T
	w  io.WriteCloser
	r  *bufio.Reader
	id int
}

func (s *rawSession) send(body string) {
	fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// read returns the next frame's body.
func (s *rawSession) read() string {
	s.t.Helper()
	length := -1
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			s.t.Fatalf("read header: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, length)
	if _, err := io.ReadFull(s.r, buf); err != nil {
		s.t.Fatalf("read body: %v", err)
	}
	return string(buf)
}

// readResponse skips notifications until the response with id arrives.
func (s *rawSession) readResponse(id int) string {
	s.t.Helper()
	want := fmt.Sprintf(`"id":%d`, id)
	for i := 0; i < 100; i++ {
		if b := s.read(); strings.Contains(b, want) {
			return b
		}
	}
	s.t.Fatalf("no response %d", id)
	return ""
}

func startRaw(t *testing.T) *rawSession {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	srv := lsp.New([]analysis.System{toy{}}, log.New(io.Discard, "", 0))
	go srv.Serve(context.Background(), pipes{sr, sw})
	t.Cleanup(func() { cw.Close() })
	return &rawSession{t: t, w: cw, r: bufio.NewReader(cr)}
}

// The server answers malformed JSON-RPC with errors and keeps serving.
func TestServerSurvivesMalformedMessages(t *testing.T) {
	s := startRaw(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"hover"}`) // before initialize
	if b := s.readResponse(1); !strings.Contains(b, `"error"`) {
		t.Errorf("request before initialize: %s", b)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	if b := s.readResponse(2); !strings.Contains(b, `"capabilities"`) {
		t.Fatalf("initialize: %s", b)
	}
	s.send(`{this is not json`)
	if b := s.read(); !strings.Contains(b, `"code":-32700`) {
		t.Errorf("malformed frame: %s", b)
	}
	s.send(`[1,2`)
	if b := s.read(); !strings.Contains(b, `"code":-32700`) {
		t.Errorf("malformed batch: %s", b)
	}
	s.send(`{"jsonrpc":"2.0","id":9}`)
	if b := s.read(); !strings.Contains(b, `"code":-32600`) {
		t.Errorf("message without method: %s", b)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":"nope"}`)
	if b := s.readResponse(3); !strings.Contains(b, `"error"`) {
		t.Errorf("hover with string params: %s", b)
	}
	s.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///never/opened.toy","version":2},"contentChanges":[{"text":"x"}]}}`)
	s.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x/bad.toy","languageId":"toy","version":1,"text":"step \u00ff\ufffd\nstep b\n"}}}`)
	s.send(`{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x/bad.toy"},"position":{"line":99,"character":99}}}`)
	if b := s.readResponse(4); !strings.Contains(b, `"result":null`) {
		t.Errorf("hover past the end: %s", b)
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`)
	if b := s.readResponse(5); strings.Contains(b, `"error"`) {
		t.Errorf("shutdown: %s", b)
	}
}

// Invalid UTF-8 and huge documents are analysed without panics, and a
// request cancelled by the client is answered with RequestCancelled or a
// result, never left hanging.
func TestServerOddDocuments(t *testing.T) {
	root := t.TempDir()
	// Invalid UTF-8 can only come from the disk: JSON cannot carry it.
	odd := filepath.Join(root, "odd.toy")
	if err := os.WriteFile(odd, []byte("step \xff\xfe\nb after \xff\xfe\n\x00\x01binary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, _ := start(t, root, nil)
	uri := source.PathToURI(odd)
	ds := c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) > 0 })
	if ds[0].Range.Start != (lsptest.Position{Line: 2, Character: 0}) {
		t.Errorf("diagnostics on a file with invalid UTF-8: %+v", ds)
	}
	var b strings.Builder
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&b, "step s%d\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "s%d after s%d\n", i, i-1)
		}
	}
	big := source.PathToURI(filepath.Join(root, "big.toy"))
	start := time.Now()
	c.Open(big, "toy", b.String())
	var hover map[string]any
	if err := c.Call("textDocument/hover", lsptest.Pos(big, 399997, 5), &hover); err != nil {
		t.Fatal(err)
	}
	contents, _ := hover["contents"].(map[string]any)
	if v, _ := contents["value"].(string); !strings.Contains(v, "Runs **200000th of 200000**") {
		t.Errorf("hover in a 400k-line document: %.200s", v)
	}
	t.Logf("400k-line document analysed and hovered in %v", time.Since(start))
}

// A server whose client has gone leaves nothing running: its analysis
// loop ends with Serve. (It did not, and a process that embeds servers,
// as the equivalence test does with a fresh one per comparison, kept each
// one's workspace analysis alive: 4.6 GB after six minutes on masterfiles.)
func TestServeEndsItsAnalysisLoop(t *testing.T) {
	loops := func() int {
		buf := make([]byte, 1<<20)
		for {
			n := runtime.Stack(buf, true)
			if n < len(buf) {
				return strings.Count(string(buf[:n]), "(*snapshotter).loop(")
			}
			buf = make([]byte, 2*len(buf))
		}
	}
	before := loops()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	srv := lsp.New([]analysis.System{toy{}}, log.New(io.Discard, "", 0))
	done := make(chan int, 1)
	go func() { done <- srv.Serve(context.Background(), pipes{sr, sw}) }()
	go io.Copy(io.Discard, cr)
	for deadline := time.Now().Add(5 * time.Second); loops() == before && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	if loops() != before+1 {
		t.Fatalf("the server's analysis loop did not start: %d loops, %d before", loops(), before)
	}
	cw.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return when its client closed the stream")
	}
	for deadline := time.Now().Add(5 * time.Second); loops() > before && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	if n := loops(); n > before {
		t.Errorf("after Serve returned, %d analysis loops run (%d before it started)", n, before)
	}
}
