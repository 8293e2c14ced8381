package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// tolerantStream keeps the session alive when a client sends a frame that
// is not a JSON-RPC message: jsonrpc2 ends the connection on such a frame,
// but a typo in a hand-written client must cost one error response, not
// the user's session. Framing errors (a broken header) still end it, since
// the byte stream cannot be resynchronised.
type tolerantStream struct {
	jsonrpc2.Stream
	frames interface {
		ReadFrame(ctx context.Context) ([]byte, int64, error)
		WriteFrame(ctx context.Context, data []byte) (int64, error)
	}
	logf func(format string, args ...any)
}

func newTolerantStream(s jsonrpc2.Stream, logf func(string, ...any)) jsonrpc2.Stream {
	fs, ok := s.(interface {
		ReadFrame(ctx context.Context) ([]byte, int64, error)
		WriteFrame(ctx context.Context, data []byte) (int64, error)
	})
	if !ok {
		return s
	}
	return &tolerantStream{Stream: s, frames: fs, logf: logf}
}

func (t *tolerantStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		frame, n, err := t.frames.ReadFrame(ctx)
		if err != nil {
			return frame, n, err
		}
		if !json.Valid(frame) {
			t.reject(ctx, jsonrpc2.ParseError, "Parse error: the message is not valid JSON")
			continue
		}
		if len(frame) > 0 && frame[0] == '[' {
			return frame, n, nil // batches are checked member by member by jsonrpc2
		}
		if _, err := jsonrpc2.DecodeMessage(frame); err != nil {
			t.reject(ctx, jsonrpc2.InvalidRequest, "Invalid request: "+err.Error())
			continue
		}
		return frame, n, nil
	}
}

func (t *tolerantStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return t.frames.WriteFrame(ctx, data)
}

// reject answers a message that has no usable id with id null, as
// JSON-RPC 2.0 specifies for parse errors.
func (t *tolerantStream) reject(ctx context.Context, code jsonrpc2.Code, msg string) {
	t.logf("rejected a malformed message: %s", msg)
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": msg},
	})
	_, _ = t.frames.WriteFrame(ctx, body)
}
