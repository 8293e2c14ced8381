package lsp

import (
	"context"
	"encoding/json"
	"fmt"
)

func init() { register("codeAction/resolve", method{call: (*Server).codeActionResolve, async: true}) }

// codeActionResolve fills in the edit of a relationship fix, with the
// order it produces as the edit's change annotation: that analysis is
// too slow to run for every action the editor lists, and runs only for
// the one the user picks.
func (s *Server) codeActionResolve(ctx context.Context, raw json.RawMessage) (any, error) {
	var a codeAction
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	if a.Data == nil || a.Edit != nil {
		return a, nil
	}
	s.mu.Lock()
	for u, v := range a.Data.Versions {
		if cur, ok := s.versions[u]; ok && cur != v {
			s.mu.Unlock()
			return nil, fmt.Errorf("the document changed since the fix was offered: ask for quick fixes again")
		}
	}
	s.mu.Unlock()
	a.Edit = s.fixEdit(ctx, a.Data, true)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	a.Data = nil
	return a, nil
}
