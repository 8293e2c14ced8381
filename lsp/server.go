// Package lsp is the language server: protocol wiring, the document store
// and one file per LSP method. It knows nothing about any particular
// configuration-management system: it asks analysis.Result for nodes,
// links, runs and diagnostics.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Version is reported in serverInfo; main sets it.
var Version = "dev"

// Server is one language-server session.
type Server struct {
	conn    jsonrpc2.Conn
	logger  *log.Logger
	systems []analysis.System

	mu          sync.Mutex
	ws          *source.Workspace
	encoding    source.Encoding
	settings    analysis.Settings
	initialized bool
	shutdown    bool
	versions    map[string]int32 // document versions by URI
	discovered  map[analysis.System][]string
	rediscover  bool
	dirty       map[analysis.System]bool             // systems to re-analyse
	last        map[analysis.System]*analysis.Result // latest result per system
	lastRead    map[analysis.System]readState        // what each of those read (layout_cutoff.go)
	// gen counts changes to what systems read besides open documents
	// (settings, files on disk, folders, a document changing owner).
	gen               uint64
	inlayRefresh      bool // client supports workspace/inlayHint/refresh
	lensRefresh       bool // client supports workspace/codeLens/refresh
	inlayRefresher    refresher
	lensRefresher     refresher
	workDoneProgress  bool                     // client supports window/workDoneProgress/create
	watchFiles        bool                     // client registers file watchers for us (didChangeWatchedFiles)
	actionResolve     bool                     // client resolves a code action's edit (codeAction/resolve)
	changeAnnotations bool                     // client shows change annotations of an edit
	fresh             func() []analysis.System // new system instances, for "what if" analyses
	notices           map[string]string        // open documents not analysed, and why (notice.go)

	snap  *snapshotter
	nodes nodeViews      // per-node analyses for the "all nodes" view (ordering_node_matrix.go)
	flat  flatTokens     // tokens of the last texts (flat_tokens.go)
	sem   *semanticState // last semantic tokens per document (semantic_tokens.go)
	exit  chan int

	cancelMu sync.Mutex
	inFlight map[string]context.CancelFunc // by JSON-encoded request id
}

// codec routes payloads through the protocol package's union-aware JSON,
// which the library keeps unexported behind protocol.Marshal/Unmarshal.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error)      { return protocol.Marshal(v) }
func (codec) Unmarshal(data []byte, v any) error { return protocol.Unmarshal(data, v) }

// New makes a server for the given systems (fresh instances: they keep
// parse caches for the life of the session).
func New(systems []analysis.System, logger *log.Logger) *Server {
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	s := &Server{
		logger:   logger,
		systems:  systems,
		ws:       source.NewWorkspace(),
		settings: analysis.Settings{},
		versions: map[string]int32{},
		dirty:    map[analysis.System]bool{},
		last:     map[analysis.System]*analysis.Result{},
		lastRead: map[analysis.System]readState{},
		exit:     make(chan int, 1),
		inFlight: map[string]context.CancelFunc{},
		sem:      &semanticState{last: map[string]semanticResult{}},
	}
	s.snap = newSnapshotter(s)
	return s
}

// SetFresh gives the server a way to make new system instances, for
// analyses of what the workspace would be after a quick fix (the order a
// fix produces). Without it, fixes come with no preview.
func (s *Server) SetFresh(f func() []analysis.System) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fresh = f
}

// Serve runs the session over rwc (stdin/stdout for `serve`) until the
// client sends exit or closes the stream. It returns the process exit code
// the LSP specification asks for: 0 after shutdown, 1 otherwise.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	// The analysis loop ends with the connection: a server embedded in a
	// longer-lived process (the tests start hundreds) must not keep its
	// workspace's analysis alive after its client has gone.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := newTolerantStream(jsonrpc2.NewHeaderStream(rwc), s.logger.Printf)
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(codec{}))
	s.conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "$/cancelRequest" {
			s.cancelRequest(json.RawMessage(req.Params()))
			return nil, nil
		}
		return s.handle(ctx, req)
	})
	go s.snap.loop(ctx)
	select {
	case code := <-s.exit:
		// Close drains in-flight work; a client that keeps the pipe open
		// must not keep the process alive after exit.
		closed := make(chan struct{})
		go func() { _ = s.conn.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(2 * time.Second):
		}
		return code
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.logger.Printf("connection ended: %v", err)
		}
		s.mu.Lock()
		down := s.shutdown
		s.mu.Unlock()
		if down {
			return 0
		}
		return 1
	}
}

// method is one handler: params are decoded by the caller.
type method struct {
	// call answers a request; async ones run off the read loop so a slow
	// analysis never delays the next didChange.
	call func(s *Server, ctx context.Context, params json.RawMessage) (any, error)
	// notify handles a notification inline, in wire order.
	notify func(s *Server, ctx context.Context, params json.RawMessage) error
	async  bool
	// caps announces the method in the initialize result, so each method's
	// file says what it offers.
	caps func(*protocol.ServerCapabilities)
}

// methods is filled by the init functions of the per-method files.
var methods = map[string]method{}

func register(name string, m method) { methods[name] = m }

func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name := req.Method()
	m, ok := methods[name]
	if !ok {
		if !req.IsCall() {
			return nil, nil // unknown notifications ($/setTrace, ...) are ignored
		}
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method not supported: %s", name))
	}
	s.mu.Lock()
	initialized, down := s.initialized, s.shutdown
	s.mu.Unlock()
	if req.IsCall() && !initialized && name != "initialize" {
		return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "server not initialized")
	}
	if req.IsCall() && down && name != "shutdown" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shutting down")
	}
	params := append(json.RawMessage(nil), req.Params()...)
	// Async releases the read loop through the request's own context: the
	// detached one below carries no release token, and Async on it does
	// nothing (every request then ran on the read loop, and a handler that
	// calls the client, as progress does, waited for an answer nobody read).
	reqCtx := ctx
	if req.IsCall() {
		// The request context is pooled by jsonrpc2 and dies with the
		// handler's first return; derive from the connection's context so
		// $/cancelRequest can cancel work that runs after Async.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(jsonrpc2.DetachContext(ctx))
		key := idKey(req.ID())
		s.cancelMu.Lock()
		s.inFlight[key] = cancel
		s.cancelMu.Unlock()
		defer func() {
			s.cancelMu.Lock()
			delete(s.inFlight, key)
			s.cancelMu.Unlock()
			cancel()
		}()
	}
	defer func() {
		// A bug in one handler must cost one answer, never the session.
		if r := recover(); r != nil {
			s.logger.Printf("panic in %s: %v\n%s", name, r, debug.Stack())
			if req.IsCall() {
				result, err = nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("internal error in %s: %v", name, r))
			} else {
				result, err = nil, nil
			}
		}
	}()
	if !req.IsCall() {
		if m.notify == nil {
			return nil, nil
		}
		if err := m.notify(s, ctx, params); err != nil {
			// An error from a notification would close the connection.
			s.logger.Printf("%s: %v", name, err)
		}
		return nil, nil
	}
	if m.call == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("%s is a notification", name))
	}
	if m.async {
		jsonrpc2.Async(reqCtx)
	}
	res, err := m.call(s, ctx, params)
	if err != nil {
		var je *jsonrpc2.Error
		if errors.As(err, &je) {
			return nil, je
		}
		if ctx.Err() != nil {
			return nil, jsonrpc2.NewError(requestCancelled, "request cancelled")
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return res, nil
}

// decode unmarshals params, turning a bad payload into InvalidParams.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+err.Error())
	}
	return nil
}

func (s *Server) notifyClient(method string, params any) {
	if s.conn == nil {
		return
	}
	if err := s.conn.Notify(context.Background(), method, params); err != nil {
		s.logger.Printf("notify %s: %v", method, err)
	}
}

// requestCancelled is LSP's RequestCancelled error code (not JSON-RPC's).
const requestCancelled jsonrpc2.Code = -32800

func idKey(id jsonrpc2.ID) string {
	if n, ok := id.Number(); ok {
		return strconv.FormatInt(n, 10)
	}
	if str, ok := id.StringValue(); ok {
		return strconv.Quote(str)
	}
	return ""
}

// cancelRequest handles $/cancelRequest inline, ahead of later messages.
func (s *Server) cancelRequest(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return
	}
	key := string(p.ID)
	s.cancelMu.Lock()
	cancel := s.inFlight[key]
	s.cancelMu.Unlock()
	if cancel != nil {
		cancel()
	}
}
