package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() { register("textDocument/didOpen", method{notify: (*Server).didOpen}) }

// didOpen makes the editor's text the truth for this URI. Documents are
// keyed by the URI string exactly as the client sent it (untitled: URIs
// have no file name).
func (s *Server) didOpen(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return err
	}
	u := string(p.TextDocument.URI)
	f := source.NewFile(u, source.URIToPath(u), []byte(p.TextDocument.Text))
	f.Language = string(p.TextDocument.LanguageID)
	was := s.owners(u, s.ws.Overlay(u)) // the disk's text, unless reopened
	s.ws.SetOverlay(f)
	s.mu.Lock()
	s.versions[u] = p.TextDocument.Version
	s.mu.Unlock()
	s.ownerMoved(u, was)
	s.touch(u)
	return nil
}
