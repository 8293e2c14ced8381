// Package lsptest is a small LSP client for tests: it drives a server over
// a pair of pipes (or a real process's stdio) the way an editor does, and
// records what the server publishes.
package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Client is a test LSP client.
type Client struct {
	t    testing.TB
	conn jsonrpc2.Conn
	// CallTimeout bounds each Call (0: $ORDERING_LSPTEST_TIMEOUT, else 20 s); a real repository's first
	// complete analysis on a loaded machine takes longer.
	CallTimeout time.Duration

	mu       sync.Mutex
	cond     *sync.Cond
	diags    map[string][]Diagnostic // latest publishDiagnostics by URI
	count    map[string]int          // how many times each URI was published
	progress []string                // kinds of $/progress values
	progMsgs []string                // "kind: title message" of each $/progress value
	notes    []string                // methods of every notification received
}

// Diagnostic is the subset of an LSP diagnostic tests look at.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"`
	Code     string `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
	Tags     []int  `json:"tags"`
	Related  []struct {
		Location Location `json:"location"`
		Message  string   `json:"message"`
	} `json:"relatedInformation"`
}

// Position, Range and Location mirror the LSP shapes.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

// New connects a client to a server reading r and writing w.
func New(t testing.TB, fromServer io.Reader, toServer io.WriteCloser) *Client {
	c := &Client{t: t, diags: map[string][]Diagnostic{}, count: map[string]int{}}
	c.cond = sync.NewCond(&c.mu)
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc{fromServer, toServer}))
	c.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.notes = append(c.notes, strings.Clone(req.Method())) // the method aliases the connection's buffer
		if req.Method() == "$/progress" {
			var p struct {
				Value struct {
					Kind    string `json:"kind"`
					Title   string `json:"title"`
					Message string `json:"message"`
				} `json:"value"`
			}
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				k := p.Value.Kind
				if k == "end" && p.Value.Message != "" {
					k += ": " + p.Value.Message
				}
				c.progress = append(c.progress, k)
				c.progMsgs = append(c.progMsgs, p.Value.Kind+": "+strings.TrimSpace(p.Value.Title+" "+p.Value.Message))
			}
			c.cond.Broadcast()
		}
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				URI         string       `json:"uri"`
				Diagnostics []Diagnostic `json:"diagnostics"`
			}
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				if p.Diagnostics == nil {
					c.t.Errorf("publishDiagnostics for %s with null diagnostics", p.URI)
				}
				c.diags[p.URI] = p.Diagnostics
				c.count[p.URI]++
			}
			c.cond.Broadcast()
		}
		if req.IsCall() {
			return nil, nil // workspace/inlayHint/refresh and friends
		}
		return nil, nil
	})
	return c
}

// Received lists the methods of the requests and notifications the server
// sent, in order.
func (c *Client) Received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

// callTimeout bounds a request: 20 s, or $ORDERING_LSPTEST_TIMEOUT (a Go
// duration) for the opt-in runs on real repositories, whose first
// analysis takes longer than that on a busy machine.
func callTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("ORDERING_LSPTEST_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}

// Call sends a request and decodes the result into out (may be nil).
func (c *Client) Call(method string, params, out any) error {
	timeout := c.CallTimeout
	if timeout == 0 {
		timeout = callTimeout()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var raw json.RawMessage
	_, err := c.conn.Call(ctx, method, params, &raw)
	if err != nil {
		return err
	}
	if out != nil && len(raw) > 0 {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// Settle returns once the server's complete analysis of uri has landed:
// ordering/order answers from it.
func (c *Client) Settle(uri string) {
	var order any
	if err := c.Call("ordering/order", map[string]any{"uri": uri}, &order); err != nil {
		c.t.Fatalf("ordering/order: %v", err)
	}
}

// WaitDiagnostics waits until the diagnostics of uri satisfy ok, and
// returns them. It fails the test after 20 s.
func (c *Client) WaitDiagnostics(uri string, ok func([]Diagnostic) bool) []Diagnostic {
	c.t.Helper()
	return c.wait(uri, 20*time.Second, func() bool {
		ds, seen := c.diags[uri]
		return seen && ok(ds)
	})
}

// Publishes returns how many times diagnostics of uri were published.
func (c *Client) Publishes(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count[uri]
}

// WaitPublish waits until diagnostics of uri have been published more than
// n times, and returns the latest.
func (c *Client) WaitPublish(uri string, n int) []Diagnostic {
	c.t.Helper()
	return c.wait(uri, 60*time.Second, func() bool { return c.count[uri] > n })
}

// wait blocks until done (called with c.mu held) or the timeout, which
// fails the test.
func (c *Client) wait(uri string, timeout time.Duration, done func() bool) []Diagnostic {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !done() {
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for diagnostics of %s; last: %s", uri, mustJSON(c.diags[uri]))
		}
		c.cond.Wait()
	}
	return c.diags[uri]
}

// Diagnostics returns the latest published diagnostics of uri.
func (c *Client) Diagnostics(uri string) []Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.diags[uri]
}

// Progress lists the kinds of the $/progress notifications received
// ("begin", "report", "end"), in order.
func (c *Client) Progress() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.progress...)
}

// ProgressMessages lists the $/progress values received, in order, as
// "begin: TITLE MESSAGE", "report: MESSAGE", "end: MESSAGE".
func (c *Client) ProgressMessages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.progMsgs...)
}

// AllDiagnostics returns the latest published diagnostics of every URI
// that has some.
func (c *Client) AllDiagnostics() map[string][]Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]Diagnostic{}
	for u, ds := range c.diags {
		if len(ds) > 0 {
			out[u] = ds
		}
	}
	return out
}

// Close closes the connection.
func (c *Client) Close() { _ = c.conn.Close() }

// Open sends didOpen.
func (c *Client) Open(uri, languageID, text string) {
	c.Notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": languageID, "version": 1, "text": text},
	})
}

// Edit sends one incremental didChange replacing rng with text.
func (c *Client) Edit(uri string, version int, rng Range, text string) {
	c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"range": rng, "text": text}},
	})
}

// Pos builds a position parameter for uri.
func Pos(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": Position{line, char}}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprint(string(b))
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

// Start runs a language server for systems in this process over pipes,
// and returns a client that has initialized it on the workspace folder
// root (with client capabilities caps, which may be nil) and sent
// initialized. The connection closes when the test ends.
func Start(t testing.TB, systems []analysis.System, root string, caps map[string]any) (*Client, map[string]any) {
	t.Helper()
	return start(t, systems, nil, root, caps)
}

// StartFresh is Start with a constructor of the systems, as `serve` has:
// the server can then analyse "what if" workspaces (quick-fix previews).
func StartFresh(t testing.TB, newSystems func() []analysis.System, root string, caps map[string]any) (*Client, map[string]any) {
	t.Helper()
	return start(t, newSystems(), newSystems, root, caps)
}

func start(t testing.TB, systems []analysis.System, fresh func() []analysis.System, root string, caps map[string]any) (*Client, map[string]any) {
	t.Helper()
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	logger := log.New(io.Discard, "", 0)
	if os.Getenv("ORDERING_LSPTEST_LOG") != "" {
		logger = log.New(os.Stderr, "server: ", log.Lmicroseconds) // the server's log, to debug a test
	}
	srv := lsp.New(systems, logger)
	if fresh != nil {
		srv.SetFresh(fresh)
	}
	go srv.Serve(context.Background(), pipeRWC{sr, sw})
	c := New(t, cr, cw)
	t.Cleanup(c.Close)
	if caps == nil {
		caps = map[string]any{}
	}
	var init map[string]any
	params := map[string]any{"processId": nil, "rootUri": source.PathToURI(root), "capabilities": caps}
	if err := c.Call("initialize", params, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.Notify("initialized", map[string]any{})
	return c, init
}
