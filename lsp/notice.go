package lsp

import (
	"bytes"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A document the analysis cannot make sense of (binary, or larger than the
// workspace reads) gets a diagnostic at its first line saying so, rather
// than silence that looks like "no problems".

// notAnalysable says why the document's text is not analysed, or "".
func notAnalysable(text []byte) string {
	if len(text) > source.MaxFileSize {
		return fmt.Sprintf("ordering-lsp cannot analyse this document: it is %d MB, over the %d MB limit", len(text)>>20, source.MaxFileSize>>20)
	}
	head := text
	if len(head) > 8192 {
		head = head[:8192]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Sprintf("ordering-lsp cannot analyse this document: it looks binary (a NUL byte at offset %d)", i)
	}
	return ""
}

// noteDocument records (or clears) the notice of an open document.
func (s *Server) noteDocument(uri string) {
	reason := ""
	if f := s.ws.Overlay(uri); f != nil {
		reason = notAnalysable(f.Text)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if reason == "" {
		delete(s.notices, uri)
		return
	}
	if s.notices == nil {
		s.notices = map[string]string{}
	}
	s.notices[uri] = reason
}

// noticeDiagnostics are the notices as diagnostics, by URI.
func (s *Server) noticeDiagnostics() map[string]protocol.Diagnostic {
	s.mu.Lock()
	notices := make(map[string]string, len(s.notices))
	for u, r := range s.notices {
		notices[u] = r
	}
	s.mu.Unlock()
	out := map[string]protocol.Diagnostic{}
	for u, reason := range notices {
		out[u] = s.toDiagnostic(analysis.Diagnostic{At: source.Span{URI: u}, Severity: analysis.Warning, Code: "not-analysed", Source: "ordering-lsp", Message: reason})
	}
	return out
}
