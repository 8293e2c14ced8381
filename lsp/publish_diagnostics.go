package lsp

import (
	"encoding/json"
	"sort"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// publishDiagnostics sends textDocument/publishDiagnostics for every file
// whose diagnostics changed since the last analysis, including files that
// became clean (an empty list, never null, clears them).
func (s *Server) publishDiagnostics(results []*analysis.Result) {
	byURI := map[string][]protocol.Diagnostic{}
	for _, r := range results {
		for _, u := range r.Files {
			if _, ok := byURI[u]; !ok {
				byURI[u] = []protocol.Diagnostic{}
			}
		}
		for _, d := range r.Diags {
			byURI[d.At.URI] = append(byURI[d.At.URI], s.toDiagnostic(d))
		}
	}
	sn := s.snap
	sn.mu.Lock()
	for u := range sn.published {
		if _, ok := byURI[u]; !ok {
			byURI[u] = []protocol.Diagnostic{}
		}
	}
	sn.mu.Unlock()

	uris := make([]string, 0, len(byURI))
	for u := range byURI {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		ds := byURI[u]
		fp, _ := json.Marshal(ds)
		sn.mu.Lock()
		old, seen := sn.published[u]
		if seen && old == string(fp) {
			sn.mu.Unlock()
			continue
		}
		if len(ds) == 0 {
			delete(sn.published, u)
		} else {
			sn.published[u] = string(fp)
		}
		sn.mu.Unlock()
		if !seen && len(ds) == 0 {
			continue // never had diagnostics: nothing to clear
		}
		params := &protocol.PublishDiagnosticsParams{URI: uri.URI(u), Diagnostics: ds}
		s.mu.Lock()
		if v, ok := s.versions[u]; ok {
			params.Version = protocol.NewOptional(v)
		}
		s.mu.Unlock()
		s.notifyClient("textDocument/publishDiagnostics", params)
	}
}

func (s *Server) toDiagnostic(d analysis.Diagnostic) protocol.Diagnostic {
	pd := protocol.Diagnostic{
		Range:    s.toRange(d.At),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Message:  protocol.String(d.Message),
		Source:   protocol.NewOptional(d.Source),
	}
	if d.Code != "" {
		pd.Code = protocol.String(d.Code)
	}
	for _, r := range d.Related {
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: s.toLocation(r.At),
			Message:  r.Message,
		})
	}
	if d.Code == "unreachable" || d.Code == "never-runs" || d.Code == "discarded" {
		pd.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
	}
	return pd
}
