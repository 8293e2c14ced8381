package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

func init() { register("ordering/order", method{call: (*Server).orderingOrder, async: true}) }

type orderStep struct {
	Label string         `json:"label"`
	Note  string         `json:"note"`
	URI   string         `json:"uri"`
	Range protocol.Range `json:"range"`
}

type orderRun struct {
	Name    string      `json:"name"`
	Entry   string      `json:"entry"`
	Refused bool        `json:"refused"`
	Steps   []orderStep `json:"steps"`
}

// orderingOrder returns the runs that involve the given file (the runs
// starting there first), for the editor's execution-order view.
func (s *Server) orderingOrder(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	snap := s.snap.latest(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var first, rest []orderRun
	if snap != nil {
		for _, r := range snap.results {
			for i := range r.Runs {
				run := &r.Runs[i]
				touches := p.URI == "" || run.Entry == p.URI
				or := orderRun{Name: run.Name, Entry: run.Entry, Refused: run.Refused, Steps: []orderStep{}}
				for _, st := range run.Steps {
					o := orderStep{Label: st.Label, Note: st.Note}
					if st.Node != nil {
						o.URI = st.Node.Decl.URI
						o.Range = s.toRange(st.Node.Decl)
						touches = touches || st.Node.Decl.URI == p.URI
					}
					or.Steps = append(or.Steps, o)
				}
				switch {
				case run.Entry == p.URI && p.URI != "":
					first = append(first, or)
				case touches:
					rest = append(rest, or)
				}
			}
		}
	}
	return map[string]any{"runs": append(append([]orderRun{}, first...), rest...)}, nil
}
