package lsp

import (
	"context"
	"encoding/json"
)

func init() {
	register("workspace/didChangeWatchedFiles", method{notify: (*Server).didChangeWatchedFiles})
}

// didChangeWatchedFiles: files changed on disk behind the editor's back
// (git checkout, a generator). Disk reads are cached by mtime, so only the
// file list needs a new walk.
func (s *Server) didChangeWatchedFiles(_ context.Context, _ json.RawMessage) error {
	s.mu.Lock()
	s.rediscover = true
	s.mu.Unlock()
	s.touchAll()
	return nil
}
