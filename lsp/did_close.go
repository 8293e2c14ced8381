package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

func init() { register("textDocument/didClose", method{notify: (*Server).didClose}) }

// didClose hands the document back to the disk: its diagnostics stay if
// the file is still part of the workspace, and go away if it never was
// (an untitled buffer) once the next analysis is published.
func (s *Server) didClose(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return err
	}
	u := string(p.TextDocument.URI)
	s.markDirty(u)
	was := s.owners(u, s.ws.Overlay(u))
	s.ws.DropOverlay(u)
	s.ownerMoved(u, was)
	s.noteDocument(u)
	s.sem.forget(u)
	s.mu.Lock()
	delete(s.versions, u)
	s.mu.Unlock()
	s.snap.invalidate("")
	return nil
}
