package lsp

import (
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// publishDiagnostics sends textDocument/publishDiagnostics for every file
// whose diagnostics changed since the last analysis, including files that
// became clean (an empty list, never null, clears them). With only, it
// publishes those documents alone (the first diagnostics of an edit, from
// a focused analysis).
func (s *Server) publishDiagnostics(results []*analysis.Result, only map[string]bool) {
	byURI := map[string][]protocol.Diagnostic{}
	conv := s.converter()
	for u := range only {
		byURI[u] = []protocol.Diagnostic{}
	}
	for _, r := range results {
		for _, u := range r.Files {
			if _, ok := byURI[u]; !ok && only == nil {
				byURI[u] = []protocol.Diagnostic{}
			}
		}
		// By place: the order the analysis found them in (runs,
		// evaluation) is no answer, and an incremental analysis may find
		// them in another.
		ds := make([]analysis.Diagnostic, 0, len(r.Diags))
		for _, d := range r.Diags {
			if only == nil || only[d.At.URI] {
				ds = append(ds, d)
			}
		}
		analysis.SortDiagnostics(ds)
		for _, d := range ds {
			byURI[d.At.URI] = append(byURI[d.At.URI], conv.diagnostic(d))
		}
	}
	for u, d := range s.noticeDiagnostics() {
		if only == nil || only[u] {
			byURI[u] = append([]protocol.Diagnostic{d}, byURI[u]...)
		}
	}
	sn := s.snap
	sn.mu.Lock()
	for u := range sn.published {
		if _, ok := byURI[u]; !ok && only == nil {
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

// Editors show one diagnostic per line of the Problems panel: a cycle of
// 2,000 resources reported on each of its resources would otherwise carry
// 2,000 related locations and a 50 KB message 2,000 times over. The CLI
// prints everything; the editor gets the head and a count.
const (
	maxRelated    = 50
	maxMessageLen = 4000
)

func (s *Server) toDiagnostic(d analysis.Diagnostic) protocol.Diagnostic {
	return s.converter().diagnostic(d)
}

func (c *converter) diagnostic(d analysis.Diagnostic) protocol.Diagnostic {
	msg := d.Message
	if len(msg) > maxMessageLen {
		cut := maxMessageLen
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + fmt.Sprintf(" … (%d more characters; `ordering-lsp check` prints it whole)", len(d.Message)-cut)
	}
	pd := protocol.Diagnostic{
		Range:    c.rng(d.At),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Message:  protocol.String(msg),
		Source:   protocol.NewOptional(d.Source),
	}
	if d.Code != "" {
		pd.Code = protocol.String(d.Code)
	}
	for i, r := range d.Related {
		if i == maxRelated {
			pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: c.location(d.At),
				Message:  fmt.Sprintf("… and %d more", len(d.Related)-i),
			})
			break
		}
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: c.location(r.At),
			Message:  r.Message,
		})
	}
	if d.NeverRuns {
		pd.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
	}
	return pd
}
