package lsp

import (
	"context"
	"encoding/json"
)

func init() {
	register("workspace/didChangeConfiguration", method{notify: (*Server).didChangeConfiguration})
}

// didChangeConfiguration takes `{"settings": {"ordering": {...}}}` (or the
// section itself) and re-analyses: ordering modes change every position.
func (s *Server) didChangeConfiguration(_ context.Context, raw json.RawMessage) error {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	settings := settingsFromJSON(p.Settings)
	applyCacheSetting(settings)
	s.mu.Lock()
	s.settings = settings
	s.mu.Unlock()
	s.touchAll()
	// hints and lenses follow settings of their own at once (and every
	// position once the analysis lands: refreshViews again then)
	s.refreshViews()
	return nil
}
