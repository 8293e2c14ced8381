package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

func init() {
	register("textDocument/codeLens", method{call: (*Server).codeLens, async: true,
		caps: func(c *protocol.ServerCapabilities) { c.CodeLensProvider = &protocol.CodeLensOptions{} }})
}

// showDependencies is the command behind a lens: the editor opens the
// dependency tree (call hierarchy) of the declaration. Arguments: the
// document URI and the declaration's position.
const showDependencies = "ordering.showDependencies"

// codeLens writes above each declaration where it runs and how tied it is:
// `runs 5th of 17 · waits for 2 · 3 depend on it`. The setting
// codeLens.enabled=false turns them off.
func (s *Server) codeLens(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	enabled := s.settings.Bool("codeLens.enabled", true)
	s.mu.Unlock()
	out := []protocol.CodeLens{}
	if !enabled {
		return out, nil
	}
	u := string(p.TextDocument.URI)
	snap := s.snap.viewFor(ctx, u, -1)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if snap.snapshot == nil {
		return out, nil
	}
	for _, d := range declarations(snap.results, u) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var parts []string
		if pos := position(d.placedInRun()); pos != "" {
			parts = append(parts, pos)
		}
		if n := len(d.related(waits)); n > 0 {
			parts = append(parts, fmt.Sprintf("waits for %d", n))
		}
		if n := len(d.related(dependents)); n == 1 {
			parts = append(parts, "1 depends on it")
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d depend on it", n))
		}
		rng, ok := s.rangeIn(snap, d.at)
		if len(parts) == 0 || !ok {
			continue
		}
		args, _ := json.Marshal([]any{u, rng.Start})
		var list []protocol.LSPAny
		_ = json.Unmarshal(args, &list)
		out = append(out, protocol.CodeLens{
			Range:   rng,
			Command: protocol.Command{Title: strings.Join(parts, " · "), Command: showDependencies, Arguments: list},
		})
	}
	return out, nil
}
