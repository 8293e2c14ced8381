package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// NodeSetting names the node whose order the user wants to see (the CLI's
// --node, the editor's node picker). Every system reads it the same way:
// the node's data (Puppet fact set, Salt minion grains and pillar) decides
// conditions, and its name decides classification (Puppet node blocks,
// Salt top-file targets). Empty: no node, every branch is a possibility.
const NodeSetting = "ordering.node"

// NodeInfo is one node a workspace knows of: one with data (a fact set,
// a minion's grains) or only a name the code classifies (a node block).
type NodeInfo struct {
	Name string
	// Detail says what it is to a reader: the platform ("Debian 12").
	Detail string
	// At is where it is written: the data file, or the node block.
	At source.Span
	// Data: the node comes with its data, so check analyses the
	// workspace under it (the matrix); a name alone does not.
	Data bool
}

// NodeLister is implemented by systems that know which nodes a workspace
// configures.
type NodeLister interface {
	Nodes(req *Request) []NodeInfo
}

// OwnNodeCheck is implemented by systems whose own analysis, given the
// data of several nodes, already analyses each of them and says on which
// nodes each problem occurs (Salt with a minion data folder): AnalyzeNodes
// leaves them alone instead of analysing every node a second time.
type OwnNodeCheck interface {
	ChecksEveryNode() bool
}

// ListNodes asks every system that can for the nodes of its files,
// sorted by name, one entry per name (data wins over a bare name).
func ListNodes(systems []System, in Input, files map[System][]*source.File) []NodeInfo {
	byName := map[string]int{}
	var out []NodeInfo
	for _, s := range systems {
		nl, ok := s.(NodeLister)
		if !ok || len(files[s]) == 0 {
			continue
		}
		for _, n := range nl.Nodes(request(in, files[s])) {
			if i, ok := byName[n.Name]; ok {
				if n.Data && !out[i].Data {
					out[i] = n
				}
				continue
			}
			byName[n.Name] = len(out)
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// NodeRun is a run's verdict on one node: Refused as the real tool would.
type NodeRun struct {
	Run     string
	Node    string
	Refused bool
}

// Matrix is one system's workspace analysed once per node with data.
type Matrix struct {
	System string
	Nodes  []NodeInfo
	// Runs lists the runs in the order the analyses found them (a run
	// some node lacks, e.g. a node block's, is still listed once).
	Runs []string
	// Refused[run][node]: the run fails on the node.
	Refused map[string]map[string]bool
	// Present[run][node]: the run exists for the node.
	Present map[string]map[string]bool
}

// AnalyzeNodes analyses the files once per node with data, each time with
// NodeSetting naming the node, on the same System value so its parse
// cache serves every node. It returns one Result whose diagnostics are
// each problem once, with the nodes it occurs on (Diagnostic.Nodes, a
// message suffix when not on every node, and a related location per
// node), and the matrix of runs x nodes. nil when the system knows no
// node with data.
func AnalyzeNodes(s System, in Input, files []*source.File) (*Result, *Matrix) {
	if _, ok := s.(NodeLister); !ok {
		return nil, nil
	}
	if own, ok := s.(OwnNodeCheck); ok && own.ChecksEveryNode() {
		return nil, nil
	}
	m := &Matrix{System: s.Name(), Refused: map[string]map[string]bool{}, Present: map[string]map[string]bool{}}
	type key struct {
		uri        string
		start, end int
		sev        Severity
		code, msg  string
	}
	merged := map[key]int{}
	out := &Result{System: s.Name()}
	fileSeen := map[string]bool{}
	EachNode(s, in, files, func(nr NodeResult) {
		n, res := nr.Node, nr.Result
		m.Nodes = append(m.Nodes, n)
		for _, u := range res.Files {
			if !fileSeen[u] {
				fileSeen[u] = true
				out.Files = append(out.Files, u)
			}
		}
		for _, r := range res.Runs {
			if m.Present[r.Name] == nil {
				m.Present[r.Name] = map[string]bool{}
				m.Refused[r.Name] = map[string]bool{}
				m.Runs = append(m.Runs, r.Name)
			}
			m.Present[r.Name][n.Name] = true
			if r.Refused {
				m.Refused[r.Name][n.Name] = true
			}
		}
		for _, d := range res.Diags {
			// Puppet names the node in some messages ("Could not find
			// class ::x for NODE"): one problem on every node still.
			k := key{d.At.URI, d.At.Start, d.At.End, d.Severity, d.Code, strings.ReplaceAll(d.Message, n.Name, nodePlaceholder)}
			if i, ok := merged[k]; ok {
				if last := out.Diags[i].Nodes; len(last) == 0 || last[len(last)-1] != n.Name {
					out.Diags[i].Nodes = append(out.Diags[i].Nodes, n.Name)
				}
				continue
			}
			merged[k] = len(out.Diags)
			d.Nodes = []string{n.Name}
			d.Related = append([]Related(nil), d.Related...)
			out.Diags = append(out.Diags, d)
		}
	})
	if len(m.Nodes) == 0 {
		return nil, nil
	}
	nodes := m.Nodes
	at := map[string]NodeInfo{}
	for _, n := range nodes {
		at[n.Name] = n
	}
	for i := range out.Diags {
		d := &out.Diags[i]
		if len(d.Nodes) > 1 {
			d.Message = strings.ReplaceAll(d.Message, d.Nodes[0], nodePlaceholder)
		}
		d.Message += NodesSuffix(d.Nodes, len(nodes))
		for _, name := range d.Nodes {
			n := at[name]
			what := "on node " + name
			if n.Detail != "" {
				what += " (" + n.Detail + ")"
			}
			d.Related = append(d.Related, Related{At: n.At, Message: what})
		}
	}
	return out, m
}

// nodePlaceholder stands for the node's name in a message several nodes
// share.
const nodePlaceholder = "<node>"

// NodesSuffix is what a problem's message says about where it occurs:
// " (on every node: 5)" or " (on 2 of 5 nodes: a, b)".
func NodesSuffix(nodes []string, total int) string {
	if len(nodes) == total {
		return fmt.Sprintf(" (on every node: %d)", total)
	}
	return fmt.Sprintf(" (on %d of %d nodes: %s)", len(nodes), total, strings.Join(nodes, ", "))
}

func request(in Input, files []*source.File) *Request {
	return &Request{Ctx: in.Ctx, Files: files, Entry: in.Entry, Workspace: in.Workspace, Settings: in.Settings, Focus: in.Focus, Once: in.Once, DiagnosticsOnly: in.DiagnosticsOnly, OrderOnly: in.OrderOnly}
}
