package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() { register("textDocument/didChange", method{notify: (*Server).didChange}) }

// didChange applies incremental (or whole-document) edits in wire order;
// notifications run on the read loop, so no edit can overtake another.
func (s *Server) didChange(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return err
	}
	u := string(p.TextDocument.URI)
	f := s.ws.Overlay(u)
	if f == nil {
		return fmt.Errorf("didChange for %s, which is not open", u)
	}
	text := f.Text
	enc := s.enc()
	for _, ch := range p.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = []byte(c.Text)
		case *protocol.TextDocumentContentChangePartial:
			cur := source.NewFile(u, "", text)
			a := cur.Offset(source.Position{Line: int(c.Range.Start.Line), Col: int(c.Range.Start.Character)}, enc)
			b := cur.Offset(source.Position{Line: int(c.Range.End.Line), Col: int(c.Range.End.Character)}, enc)
			if b < a {
				a, b = b, a
			}
			next := make([]byte, 0, len(text)-(b-a)+len(c.Text))
			next = append(next, text[:a]...)
			next = append(next, c.Text...)
			next = append(next, text[b:]...)
			text = next
		}
	}
	nf := source.NewFile(u, source.URIToPath(u), text)
	nf.Language = f.Language
	was := s.owners(u, f)
	s.ws.SetOverlay(nf)
	s.mu.Lock()
	s.versions[u] = p.TextDocument.Version
	s.mu.Unlock()
	s.ownerMoved(u, was)
	s.touch(u)
	return nil
}
