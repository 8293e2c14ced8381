package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("workspace/didChangeWorkspaceFolders", method{notify: (*Server).didChangeWorkspaceFolders})
}

// didChangeWorkspaceFolders adds new folders; removed folders stay until
// the session ends (their files may still be open).
func (s *Server) didChangeWorkspaceFolders(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(raw, &p); err != nil {
		return err
	}
	for _, f := range p.Event.Added {
		if path := source.URIToPath(string(f.URI)); path != "" {
			s.ws.AddRoot(path)
		}
	}
	s.mu.Lock()
	s.rediscover = true
	s.mu.Unlock()
	s.touchAll()
	return nil
}
