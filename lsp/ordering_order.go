package lsp

import (
	"context"
	"encoding/json"

	"github.com/ordering-lsp/ordering-lsp/analysis"

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

// maxOrderRuns bounds the runs ordering/order lists besides those that
// start at the file: a class every role includes is in hundreds of runs
// (operations-puppet's profile::base: 800, 68 MB of JSON and 1.9 s), more
// than a tree view can show anyone. The answer says how many it left out.
const maxOrderRuns = 50

// orderingOrder returns the runs that involve the given file (the runs
// starting there first, then up to maxOrderRuns others), for the
// editor's execution-order view.
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
	omitted := 0
	if snap != nil {
		for _, r := range snap.results {
			for i := range r.Runs {
				run := &r.Runs[i]
				starts := p.URI != "" && run.Entry == p.URI
				if !starts && !touches(run, p.URI) {
					continue
				}
				if !starts && len(rest) == maxOrderRuns {
					omitted++
					continue
				}
				or := orderRun{Name: run.Name, Entry: run.Entry, Refused: run.Refused, Steps: make([]orderStep, 0, len(run.Steps))}
				for _, st := range run.Steps {
					o := orderStep{Label: st.Label, Note: st.Note}
					if st.Node != nil {
						o.URI = st.Node.Decl.URI
						o.Range = s.toRange(st.Node.Decl)
					}
					or.Steps = append(or.Steps, o)
				}
				if starts {
					first = append(first, or)
				} else {
					rest = append(rest, or)
				}
			}
		}
	}
	return orderResult{Runs: append(append([]orderRun{}, first...), rest...), Omitted: omitted}, nil
}

type orderResult struct {
	Runs []orderRun `json:"runs"`
	// Omitted counts the runs that involve the file but are not listed.
	Omitted int `json:"omitted,omitempty"`
}

// touches reports whether a step of run is declared in uri ("": every
// run).
func touches(run *analysis.Run, uri string) bool {
	if uri == "" || run.Entry == uri {
		return true
	}
	for _, st := range run.Steps {
		if st.Node != nil && st.Node.Decl.URI == uri {
			return true
		}
	}
	return false
}
