package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() { register("textDocument/didSave", method{notify: (*Server).didSave}) }

// didSave changes nothing the systems read: a saved document is open, and
// analyses read its text, not the disk's. A document saved for the first
// time is a new file on disk, which the next walk of the workspace must
// find (an open document not in the walk already has an owner:
// analyzeSystems). Analysing again at every save cost seconds of CPU on a
// control repository for the same answers, and saves come often.
func (s *Server) didSave(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidSaveTextDocumentParams
	path := ""
	if err := decode(raw, &p); err == nil {
		path = source.URIToPath(string(p.TextDocument.URI))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	known := false
	for _, ps := range s.discovered {
		for _, q := range ps {
			known = known || q == path
		}
	}
	if !known {
		s.rediscover = true
	}
	return nil
}
