package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("workspace/didChangeWatchedFiles", method{notify: (*Server).didChangeWatchedFiles})
}

// watchWorkspace asks the client to report files created, changed and
// deleted on disk behind the editor's back (git checkout, r10k installing
// a Puppetfile's modules, a generator): without it the server never sees
// a file it was not told about. Every file: which ones matter is the
// systems' business (Owns, analysis.Reader), not the server's.
func (s *Server) watchWorkspace() {
	s.mu.Lock()
	watch := s.watchFiles
	s.mu.Unlock()
	if !watch {
		return
	}
	params := map[string]any{"registrations": []map[string]any{{
		"id":              "ordering-lsp-files",
		"method":          "workspace/didChangeWatchedFiles",
		"registerOptions": map[string]any{"watchers": []map[string]any{{"globPattern": "**/*"}}},
	}}}
	// Not from the notification's goroutine: the reply comes through the
	// connection this handler is part of.
	go func() { _, _ = s.conn.Call(context.Background(), "client/registerCapability", params, nil) }()
}

// didChangeWatchedFiles: files changed on disk. Disk reads are cached by
// mtime, so a change needs only the systems that own or read the file
// analysed again; a creation or deletion also a new walk of the folders.
func (s *Server) didChangeWatchedFiles(_ context.Context, raw json.RawMessage) error {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(raw, &p); err != nil || len(p.Changes) == 0 {
		s.mu.Lock()
		s.rediscover = true
		s.mu.Unlock()
		s.touchAll()
		return nil
	}
	relevant, walk := false, false
	for _, ch := range p.Changes {
		path := source.URIToPath(string(ch.URI))
		if path == "" || hiddenPath(path) {
			continue
		}
		if ch.Type == protocol.FileChangeTypeChanged && s.ws.OverlayAt(path) != nil {
			continue // an open document saved: analyses read its text, not the disk's
		}
		if s.concerns(path) || filepath.Ext(path) == "" {
			relevant = true
			walk = walk || ch.Type != protocol.FileChangeTypeChanged
		}
	}
	if !relevant {
		return nil
	}
	if walk {
		s.mu.Lock()
		s.rediscover = true
		s.mu.Unlock()
	}
	s.touchAll()
	return nil
}

// concerns: some system owns the file or reads it.
func (s *Server) concerns(path string) bool {
	for _, sys := range s.systems {
		if sys.Owns(path, func() []byte { return nil }) {
			return true
		}
		if rd, ok := sys.(analysis.Reader); ok && rd.Reads(path) {
			return true
		}
	}
	return false
}

// hiddenPath: a path inside a folder whose name starts with a dot or
// node_modules (version control, editor state, dependencies), as the
// workspace walk skips them.
func hiddenPath(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(path)), "/") {
		if part == "node_modules" || len(part) > 1 && part[0] == '.' && part != ".." {
			return true
		}
	}
	return false
}
