package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("ordering/nodeMatrix", method{call: (*Server).orderingNodeMatrix, async: true})
}

// The "all nodes" view: for the declaration under the cursor, where it
// runs on each node the workspace has data for (a fact set, a minion's
// grains), or why it does not run there. Each node is one analysis of the
// workspace with that node's data, so the answers of a version of the
// text are computed once, on the first request that needs them, with
// fresh system instances (the live ones belong to the snapshot loop),
// kept until the text or the settings change; hovers show them when they
// are there and never wait for them.

// nodeMatrixCommand is ordering/nodeMatrix as a command, for clients that
// send commands more easily than requests of their own (Neovim, Emacs):
// its one argument is the request's params.
const nodeMatrixCommand = "ordering.nodeMatrix"

// nodeViews holds the per-node analyses of one snapshot.
type nodeViews struct {
	// run is held by the computation using systems: a newer one waits
	// for the one it cancelled (system instances are not safe for
	// concurrent use)
	run     sync.Mutex
	mu      sync.Mutex
	version uint64 // the snapshot they analyse
	key     string // the settings they were made with
	done    chan struct{}
	cancel  context.CancelFunc
	per     map[string][]analysis.NodeResult // by system name
	// systems: fresh instances kept from one computation to the next, so
	// the parse caches serve every node and every version
	systems []analysis.System
}

// nodeMatrixParams: a position, as textDocument/hover has.
type nodeMatrixParams = protocol.TextDocumentPositionParams

// nodeMatrixResult answers ordering/nodeMatrix.
type nodeMatrixResult struct {
	// Subject names the declaration ("" when there is none at the
	// position); Current is the ordering.node setting.
	Subject string          `json:"subject"`
	Kind    string          `json:"kind,omitempty"`
	Current string          `json:"current"`
	Nodes   []nodePlaceJSON `json:"nodes"`
	// Message says why the list is empty (no node data, nothing here).
	Message string `json:"message,omitempty"`
}

type nodePlaceJSON struct {
	Name     string         `json:"name"`
	Detail   string         `json:"detail,omitempty"`
	URI      string         `json:"uri,omitempty"`
	Refs     []string       `json:"refs,omitempty"`
	Runs     []nodeRunPlace `json:"runs"`
	Absent   string         `json:"absent,omitempty"`
	Problems []string       `json:"problems,omitempty"`
	// Summary is the line a client shows ("3rd of 12 in manifests/", or
	// the reason it is absent).
	Summary string `json:"summary"`
}

type nodeRunPlace struct {
	Run     string `json:"run"`
	Index   int    `json:"index"`
	Of      int    `json:"of"`
	Refused bool   `json:"refused"`
}

// orderingNodeMatrix answers where the declaration at the position runs
// on each node. It waits for an analysis of the current text (the answer
// names what is there now) and for the per-node analyses of it.
func (s *Server) orderingNodeMatrix(ctx context.Context, raw json.RawMessage) (any, error) {
	var p nodeMatrixParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	current := s.settings.Get(analysis.NodeSetting, "")
	s.mu.Unlock()
	snap, t := s.atExact(ctx, p)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res := nodeMatrixResult{Current: current, Nodes: []nodePlaceJSON{}}
	if t.node == nil {
		res.Message = "no declaration at the cursor"
		return res, nil
	}
	res.Subject, res.Kind = t.node.Ref, t.node.Kind
	per, err := s.nodeResults(ctx, snap)
	if err != nil {
		return nil, err
	}
	nrs := per[t.result.System]
	if len(nrs) == 0 {
		res.Message = "no node data: set puppet.facts to a folder of fact sets, or salt.minions to a folder of minion data"
		return res, nil
	}
	where := s.whereIn(view{snapshot: snap})
	for _, pl := range analysis.PlaceOnNodes(t.node, nrs, where) {
		res.Nodes = append(res.Nodes, placeJSON(pl, t.node.Ref))
	}
	return res, nil
}

func placeJSON(pl analysis.NodePlace, subject string) nodePlaceJSON {
	o := nodePlaceJSON{Name: pl.Node.Name, Detail: pl.Node.Detail, URI: pl.Node.At.URI, Refs: pl.Refs, Absent: pl.Absent, Problems: pl.Problems, Runs: []nodeRunPlace{}}
	for _, r := range pl.Runs {
		o.Runs = append(o.Runs, nodeRunPlace(r))
	}
	o.Summary = placeSummary(pl, subject)
	return o
}

// placeSummary is a node's answer in one line.
func placeSummary(pl analysis.NodePlace, subject string) string {
	if pl.Absent != "" {
		return pl.Absent
	}
	var b strings.Builder
	for i, r := range pl.Runs {
		if i == 2 {
			b.WriteString("; and " + analysis.Count(len(pl.Runs)-2, "more run", "more runs"))
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s of %d in %s", analysis.Ordinal(r.Index), r.Of, r.Run)
		if r.Refused {
			b.WriteString(" (the run fails)")
		}
	}
	if len(pl.Refs) == 1 && pl.Refs[0] != subject && b.Len() > 0 {
		b.WriteString(" as " + pl.Refs[0]) // a title the node's data decides
	}
	if len(pl.Problems) > 0 {
		b.WriteString(" — " + pl.Problems[0])
	}
	return b.String()
}

// nodeResults returns the per-node analyses of the snapshot's text,
// computing them if they are not there yet; requests asking meanwhile
// wait for the same computation. A newer snapshot cancels an older one's.
func (s *Server) nodeResults(ctx context.Context, snap *snapshot) (map[string][]analysis.NodeResult, error) {
	if snap == nil {
		return nil, nil
	}
	s.mu.Lock()
	settings := cloneSettings(s.settings)
	fresh := s.fresh
	s.mu.Unlock()
	if fresh == nil {
		return nil, nil
	}
	key := settingsKey(settings)
	nv := &s.nodes
	nv.mu.Lock()
	if nv.done == nil || nv.version != snap.version || nv.key != key {
		if nv.cancel != nil {
			nv.cancel()
		}
		if nv.systems == nil || nv.key != key {
			nv.systems = fresh()
		}
		cctx, cancel := context.WithCancel(context.Background())
		nv.version, nv.key, nv.cancel, nv.per = snap.version, key, cancel, nil
		done := make(chan struct{})
		nv.done = done
		systems := nv.systems
		go s.computeNodes(cctx, snap, settings, systems, done)
	}
	done := nv.done
	nv.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	nv.mu.Lock()
	defer nv.mu.Unlock()
	if nv.done != done {
		return nil, context.Canceled // superseded while waiting
	}
	return nv.per, nil
}

// computeNodes analyses the snapshot's text once per node of every
// system that lists nodes with data, with progress.
func (s *Server) computeNodes(ctx context.Context, snap *snapshot, settings analysis.Settings, systems []analysis.System, done chan struct{}) {
	defer close(done)
	s.nodes.run.Lock()
	defer s.nodes.run.Unlock()
	if ctx.Err() != nil {
		return
	}
	var open []*source.File
	for _, f := range snap.overlays {
		open = append(open, f)
	}
	ws := s.ws.Fork(open...)
	in := analysis.Input{Ctx: ctx, Workspace: ws, Settings: settings, Once: true}
	s.mu.Lock()
	paths := map[analysis.System][]string{}
	for _, live := range s.systems {
		for _, x := range systems {
			if x.Name() == live.Name() {
				paths[x] = append([]string(nil), s.discovered[live]...)
			}
		}
	}
	s.mu.Unlock()
	files := analysis.Load(systems, in, paths)
	var pr *progress
	per := map[string][]analysis.NodeResult{}
	for _, sys := range systems {
		if _, ok := sys.(analysis.NodeLister); !ok || len(files[sys]) == 0 {
			continue
		}
		analysis.EachNode(sys, in, files[sys], func(nr analysis.NodeResult) {
			if pr == nil {
				pr = s.startProgress("Ordering: every node", "")
			}
			pr.report(sys.Name() + ": " + nr.Node.Name)
			per[sys.Name()] = append(per[sys.Name()], nr)
		})
	}
	if pr != nil {
		if ctx.Err() != nil {
			pr.end("superseded by a newer change")
		} else {
			pr.end("done")
		}
	}
	if ctx.Err() != nil {
		return
	}
	s.nodes.mu.Lock()
	if s.nodes.done == done {
		s.nodes.per = per
	}
	s.nodes.mu.Unlock()
}

// nodesReady returns the per-node analyses of the snapshot when they are
// already there (a hover never waits for them).
func (s *Server) nodesReady(snap *snapshot) map[string][]analysis.NodeResult {
	if snap == nil {
		return nil
	}
	s.mu.Lock()
	key := settingsKey(s.settings)
	s.mu.Unlock()
	nv := &s.nodes
	nv.mu.Lock()
	defer nv.mu.Unlock()
	if nv.version != snap.version || nv.per == nil || nv.key != key {
		return nil
	}
	return nv.per
}

// settingsKey fingerprints the settings a per-node analysis was made with.
func settingsKey(st analysis.Settings) string {
	b, _ := json.Marshal(st)
	return string(b)
}

// hoverNodes bounds the nodes a hover lists; the view lists them all.
const hoverNodes = 8

// onEachNode is the hover's "On each node" section: with no node chosen
// and the per-node analyses of the hover's snapshot already made (the
// "all nodes" view asked for them), where the declaration runs on each.
func (s *Server) onEachNode(t target, where func(source.Span) string) string {
	s.mu.Lock()
	current := s.settings.Get(analysis.NodeSetting, "")
	s.mu.Unlock()
	if current != "" || t.node == nil {
		return ""
	}
	nrs := s.nodesReady(t.v.snapshot)[t.result.System]
	if len(nrs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n**On each node**\n")
	for i, pl := range analysis.PlaceOnNodes(t.node, nrs, where) {
		if i == hoverNodes {
			fmt.Fprintf(&b, "- … and %d more nodes\n", len(nrs)-hoverNodes)
			break
		}
		name := "`" + pl.Node.Name + "`"
		if pl.Node.Detail != "" {
			name += " (" + pl.Node.Detail + ")"
		}
		fmt.Fprintf(&b, "- %s: %s\n", name, strings.ReplaceAll(placeSummary(pl, t.node.Ref), "`", "'"))
	}
	return strings.TrimRight(b.String(), "\n")
}
