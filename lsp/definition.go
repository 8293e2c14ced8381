package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

func init() { register("textDocument/definition", method{call: (*Server).definition, async: true}) }

// definition jumps from a reference to every declaration it names (all
// matches of a glob, each title of a multi-title reference) and to the
// files it includes. On a declaration it answers the declaration itself,
// so editors fall back to showing its references.
func (s *Server) definition(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DefinitionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t := s.at(ctx, p.TextDocumentPositionParams)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	locs := protocol.LocationSlice{}
	switch {
	case t.link != nil:
		for _, n := range t.link.Nodes {
			locs = append(locs, s.toLocation(n.Decl))
		}
		for _, f := range t.link.Files {
			locs = append(locs, s.toLocation(f))
		}
	case t.node != nil:
		locs = append(locs, s.toLocation(t.node.Decl))
	}
	return locs, nil
}
