package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
)

// Work-done progress (window/workDoneProgress/create, $/progress) for the
// complete analysis that follows an edit or a change on disk: on a big
// repository it runs for seconds in the background, after the edited
// file's diagnostics are shown, and the editor says so in its status bar.
// Analyses shorter than progressDelay show nothing (no flicker).

const progressDelay = 300 * time.Millisecond

var progressTokens atomic.Int64

// progressParams is $/progress's params (protocol.ProgressParams's value
// is a closed union that the progress structs are not part of).
type progressParams struct {
	Token any `json:"token"` // a string of ours, or the client's workDoneToken as sent
	Value any `json:"value"`
}

type progress struct {
	s     *Server
	mu    sync.Mutex
	done  bool
	token any // set once begun
	stop  chan struct{}
}

// startProgress reports title after progressDelay, if the client
// supports it and the work is not over by then.
func (s *Server) startProgress(title, message string) *progress {
	p := &progress{s: s, stop: make(chan struct{})}
	s.mu.Lock()
	ok := s.workDoneProgress
	s.mu.Unlock()
	if !ok || s.conn == nil {
		p.done = true
		return p
	}
	go func() {
		select {
		case <-p.stop:
			return
		case <-time.After(progressDelay):
		}
		token := fmt.Sprintf("ordering-lsp/analysis/%d", progressTokens.Add(1))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)}, nil); err != nil {
			return // the client refused: no progress for this one
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.done {
			return
		}
		p.token = token
		msg := message
		s.notifyClient("$/progress", progressParams{Token: token, Value: &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Message: &msg}})
	}()
	return p
}

// end closes the report (message: how it ended).
func (p *progress) end(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	close(p.stop)
	if p.token != nil {
		p.s.notifyClient("$/progress", progressParams{Token: p.token, Value: &protocol.WorkDoneProgressEnd{Kind: "end", Message: &message}})
	}
}

// commandProgress reports work the user asked for (a command) at once,
// with no delay: under the client's workDoneToken when the request
// carried one, else under one the server creates.
func (s *Server) commandProgress(clientToken json.RawMessage, title, message string) *progress {
	p := &progress{s: s, stop: make(chan struct{})}
	s.mu.Lock()
	ok := s.workDoneProgress
	s.mu.Unlock()
	var token any
	switch {
	case s.conn == nil:
	case len(clientToken) > 0 && string(clientToken) != "null":
		token = clientToken
	case ok:
		t := fmt.Sprintf("ordering-lsp/command/%d", progressTokens.Add(1))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: protocol.String(t)}, nil); err == nil {
			token = t
		}
	}
	if token == nil {
		p.done = true
		return p
	}
	p.token = token
	s.notifyClient("$/progress", progressParams{Token: token, Value: &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Message: &message}})
	return p
}

// report says what the work is doing now.
func (p *progress) report(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || p.token == nil {
		return
	}
	p.s.notifyClient("$/progress", progressParams{Token: p.token, Value: &protocol.WorkDoneProgressReport{Kind: "report", Message: &message}})
}

// counter returns a Request.Progress for the system named: it reports
// "system: done of total" with a percentage, at most every
// progressEvery (a repository's analysis merges hundreds of runs a
// second).
func (p *progress) counter(system string) func(done, total int) {
	var last time.Time
	return func(done, total int) {
		if time.Since(last) < progressEvery || total <= 0 {
			return
		}
		last = time.Now()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.done || p.token == nil {
			return
		}
		pct := uint32(min(100, done*100/total))
		msg := fmt.Sprintf("%s: %d of %d runs", system, done, total)
		p.s.notifyClient("$/progress", progressParams{Token: p.token, Value: &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg, Percentage: &pct}})
	}
}

const progressEvery = 250 * time.Millisecond
