package lsp

import (
	"context"
	"encoding/json"
)

func init() {
	register("shutdown", method{call: func(s *Server, _ context.Context, _ json.RawMessage) (any, error) {
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, nil
	}})
	register("exit", method{notify: func(s *Server, _ context.Context, _ json.RawMessage) error {
		s.mu.Lock()
		code := 1
		if s.shutdown {
			code = 0
		}
		s.mu.Unlock()
		select {
		case s.exit <- code:
		default:
		}
		return nil
	}})
}
