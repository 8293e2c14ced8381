package lsp

import (
	"context"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// nodesCommand lists the nodes the workspace knows, so a client can offer
// a picker and set `ordering.node` to the one chosen: hovers, lenses,
// inlay hints and diagnostics then show that node's order. Nodes come
// from every system that knows some (analysis.NodeLister: fact sets,
// minion data, node-block names), never from the server's own idea of a
// system.
const nodesCommand = "ordering.nodes"

// nodeItem is one entry of the picker.
type nodeItem struct {
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
	// Data: the node comes with its facts (a fact set), not only a name
	// the code classifies.
	Data bool   `json:"data"`
	URI  string `json:"uri,omitempty"`
}

// nodesResult answers nodesCommand: the nodes and the current choice
// ("" = all nodes: no node's data, every branch a possibility).
type nodesResult struct {
	Current string     `json:"current"`
	Nodes   []nodeItem `json:"nodes"`
}

func (s *Server) listNodes(ctx context.Context) (any, error) {
	s.mu.Lock()
	in := analysis.Input{Ctx: ctx, Workspace: s.ws, Settings: cloneSettings(s.settings)}
	discovered := s.discovered
	s.mu.Unlock()
	if discovered == nil {
		discovered = analysis.Discover(s.systems, in)
	}
	files := analysis.Load(s.systems, in, discovered)
	res := nodesResult{Current: in.Settings.Get(analysis.NodeSetting, ""), Nodes: []nodeItem{}}
	for _, n := range analysis.ListNodes(s.systems, in, files) {
		res.Nodes = append(res.Nodes, nodeItem{Name: n.Name, Detail: n.Detail, Data: n.Data, URI: n.At.URI})
	}
	return res, nil
}
