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
	// The action comes back as the client keeps it (its diagnostics in
	// the client's shape): only data is ours to read, the rest goes back
	// as it came.
	var a map[string]json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	var data *fixData
	if d, ok := a["data"]; ok {
		if err := json.Unmarshal(d, &data); err != nil {
			return nil, fmt.Errorf("this code action's data is not one of ours: %v", err)
		}
	}
	if _, has := a["edit"]; has || data == nil {
		return a, nil
	}
	s.mu.Lock()
	for u, v := range data.Versions {
		if cur, ok := s.versions[u]; ok && cur != v {
			s.mu.Unlock()
			return nil, fmt.Errorf("the document changed since the fix was offered: ask for quick fixes again")
		}
	}
	s.mu.Unlock()
	edit, err := json.Marshal(s.fixEdit(ctx, data, true))
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	a["edit"] = edit
	delete(a, "data")
	return a, nil
}
