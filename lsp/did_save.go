package lsp

import (
	"context"
	"encoding/json"
)

func init() { register("textDocument/didSave", method{notify: (*Server).didSave}) }

// didSave re-walks the workspace: a save may have created a file that
// other files include.
func (s *Server) didSave(_ context.Context, _ json.RawMessage) error {
	s.mu.Lock()
	s.rediscover = true
	s.mu.Unlock()
	s.touchAll()
	return nil
}
