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
	inlay, lens := s.inlayRefresh, s.lensRefresh
	s.mu.Unlock()
	s.touchAll()
	// hints and lenses follow settings of their own and every position
	if inlay {
		go func() {
			_, _ = s.conn.Call(context.Background(), "workspace/inlayHint/refresh", nil, nil)
		}()
	}
	if lens {
		go func() {
			_, _ = s.conn.Call(context.Background(), "workspace/codeLens/refresh", nil, nil)
		}()
	}
	return nil
}
