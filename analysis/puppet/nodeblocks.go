package puppet

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Node blocks. A main manifest with several node definitions configures
// each node with one of them (the runs named "(node ...)"). Severity is a
// promise about the nodes a repository configures: a problem that only
// some blocks' runs have fails only the nodes those blocks match, a
// warning that names them (nyudlts/puppet-control-repo: `node /fedora/ {
// include roles::fedora3 }` of a class nobody defines was an error for
// every node). One that every block's run has stays an error, as does
// any problem when two definitions have the same name: Puppet refuses to
// load them, whatever the node.

// nodeGroup is the node runs of one main manifest.
type nodeGroup struct {
	merged int  // its runs merged by this analysis
	dup    bool // two of its definitions have the same name
}

// nodeRun is what the analysis knows of a run of one node block.
type nodeRun struct {
	group *nodeGroup
	label string // "node /fedora/"
}

// planNodeRuns records the node runs of specs, and reports node
// definitions of one run that share a name.
func (a *analyzer) planNodeRuns(specs []*runSpec) {
	groups := map[string]*nodeGroup{}
	for _, sp := range specs {
		if sp.sel == nil || sp.sel.def == nil {
			continue
		}
		var key strings.Builder
		for _, fi := range sp.files {
			key.WriteString(fi.uri + "\x00")
		}
		g := groups[key.String()]
		if g == nil {
			g = &nodeGroup{}
			groups[key.String()] = g
			var nodes []*nodeInfo
			for _, fi := range sp.files {
				nodes = append(nodes, fi.nodes...)
			}
			g.dup = a.dupNodes(nodes)
		}
		if a.nodeRuns == nil {
			a.nodeRuns = map[string]nodeRun{}
		}
		a.nodeRuns[sp.name] = nodeRun{group: g, label: "node " + sp.sel.name}
	}
}

// dupNodes adds Puppet's error for each node definition whose name an
// earlier one has (nodes in the order Puppet loads them), and reports
// whether there was one.
func (a *analyzer) dupNodes(nodes []*nodeInfo) bool {
	type first struct {
		fi   *fileInfo
		line int
		at   source.Span
	}
	seen := map[string]first{}
	dup := false
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			k, ok := nodeKeyOf(m)
			if !ok {
				continue
			}
			at := a.span(n.file, *m.Span())
			if f, ok := seen[k]; ok {
				dup = true
				a.addDiag(analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "duplicate-node",
					Message: fmt.Sprintf("Node '%s' is already defined (file: %s, line: %d); cannot redefine", k, a.displayPath(f.fi.uri), f.line),
					Related: []analysis.Related{{At: f.at, Message: "first defined here"}}})
				continue
			}
			seen[k] = first{n.file, a.line(at), at}
		}
	}
	return dup
}

// nodeKeyOf is the name Puppet keeps a node definition under: a name in
// lower case, `default`, or for a regex "__node_regexp__" and its source
// in lower case without the characters a name cannot hold or leading
// dots (/a.*(c)?/ and /a.*c/ are both __node_regexp__a.c, which Puppet
// refuses to define twice).
func nodeKeyOf(m pp.Node) (string, bool) {
	switch t := m.(type) {
	case *pp.Str:
		if len(t.Parts) > 0 {
			return "", false
		}
		return strings.ToLower(t.Value), true
	case *pp.Name:
		return strings.ToLower(t.Value), true
	case *pp.Default:
		return "default", true
	case *pp.Regex:
		s := nodeRegexDrop.ReplaceAllString(strings.ToLower(t.Value), "")
		return "__node_regexp__" + strings.TrimLeft(s, "."), true
	}
	return "", false
}

var nodeRegexDrop = regexp.MustCompile(`[^-\w:.]`)

// noteDiagRun records that the run being merged (a.curRun) reports the
// problem keyed k.
func (a *analyzer) noteDiagRun(k string) {
	if a.nodeRuns == nil {
		return
	}
	if a.diagRuns == nil {
		a.diagRuns = map[string]map[string]bool{}
	}
	rs := a.diagRuns[k]
	if rs == nil {
		rs = map[string]bool{}
		a.diagRuns[k] = rs
	}
	rs[a.curRun] = true
}

// mergingRun sets the run whose problems are added next.
func (a *analyzer) mergingRun(name string) {
	a.curRun = name
	if nr, ok := a.nodeRuns[name]; ok {
		nr.group.merged++
	}
}

// settleNodeBlocks makes an error that some of a main manifest's node
// runs report, and not all of those this analysis merged, a warning
// naming the blocks whose nodes it fails.
func (a *analyzer) settleNodeBlocks() {
	for i := range a.diags {
		d := &a.diags[i]
		if d.Severity != analysis.Error {
			continue
		}
		rs := a.diagRuns[diagKey(*d)]
		if len(rs) == 0 {
			continue
		}
		var g *nodeGroup
		var labels []string
		for name := range rs {
			nr, ok := a.nodeRuns[name]
			if !ok || g != nil && nr.group != g {
				g = nil
				break
			}
			g = nr.group
			labels = append(labels, nr.label)
		}
		if g == nil || g.dup || len(rs) >= g.merged {
			continue
		}
		sort.Strings(labels)
		d.Severity = analysis.Warning
		verb := "matches"
		if len(labels) > 1 {
			verb = "match"
		}
		suffix := fmt.Sprintf("%s%s %s)", nodesMark, strings.Join(labels, " or "), verb)
		d.Message += suffix
		if d.Template != "" {
			// (a result followed through an edit is written from it)
			d.Template += suffix
		}
	}
}

// nodesMark starts what settleNodeBlocks adds to a problem some node
// blocks' runs have.
const nodesMark = " (only on the nodes that "

// diagKey is what addDiag tells problems apart by.
func diagKey(d analysis.Diagnostic) string {
	return d.At.URI + "\x00" + itoa(d.At.Start) + "\x00" + itoa(d.At.End) + "\x00" + d.Message
}

// What a definition nothing declares adds to its run's errors (addDiag):
// aloneMark + the definition + aloneEnd.
const (
	aloneMark = " (only where "
	aloneEnd  = " is declared: nothing in the workspace declares it)"
)

// mergeAlone settles the problems the runs of definitions nothing
// declares report (addDiag made them warnings naming the definition): one
// that a run of the workspace, or a check of the files themselves, also
// reports at the same place (under some node blocks or not) is that
// report's, and is dropped; several
// such definitions reporting one problem (two undeclared roles including
// one profile, ghomem's node examples) make one warning naming them all,
// in a stable order, not one per definition.
func (a *analyzer) mergeAlone() {
	others := map[markedKey]bool{}
	n := 0
	for _, d := range a.diags {
		if _, _, ok := splitMarked(d.Message, aloneMark, aloneEnd); ok && d.Severity == analysis.Warning {
			n++
			continue
		}
		others[markedKey{d.At, d.Code, d.Message}] = true
		// (a problem of some node blocks' runs: settleNodeBlocks named them)
		if i := strings.LastIndex(d.Message, nodesMark); i >= 0 && strings.HasSuffix(d.Message, ")") {
			others[markedKey{d.At, d.Code, d.Message[:i]}] = true
		}
	}
	if n == 0 {
		return
	}
	out, names, first := foldMarked(a.diags, aloneMark, aloneEnd, func(d analysis.Diagnostic) bool { return d.Severity == analysis.Warning }, others)
	for k, ns := range names {
		if len(ns) > 1 {
			shown := ns
			more := ""
			if len(ns) > 4 {
				shown = ns[:3]
				more = fmt.Sprintf(" or %d others", len(ns)-3)
			}
			tail := aloneMark + strings.Join(shown, " or ") + more + " is declared: nothing in the workspace declares them)"
			d := &out[first[k]]
			d.Message = k.base + tail
			if tb, _, ok := splitMarked(d.Template, aloneMark, aloneEnd); ok {
				d.Template = tb + tail
			}
		}
	}
	a.diags = out
}

// markedKey is a problem as the copies of it that a mark tells apart
// (aloneMark, exampleMark, mergeDeclaredWhen's condition: which
// definition, example or declaring run reports it) share it.
type markedKey struct {
	at         source.Span
	code, base string
}

// splitMarked splits message m into its base and the name between mark
// and end at its close (false: m ends otherwise).
func splitMarked(m, mark, end string) (string, string, bool) {
	if !strings.HasSuffix(m, end) {
		return m, "", false
	}
	i := strings.LastIndex(m, mark)
	if i < 0 {
		return m, "", false
	}
	return m[:i], m[i+len(mark) : len(m)-len(end)], true
}

// foldMarked keeps, of the diagnostics marked (mark ... end, and marked
// says so), the first of each problem no other diagnostic reports
// (others), in place; the rest pass through. It says what the copies of
// each kept one named (sorted), and where it is in out.
func foldMarked(diags []analysis.Diagnostic, mark, end string, marked func(analysis.Diagnostic) bool, others map[markedKey]bool) ([]analysis.Diagnostic, map[markedKey][]string, map[markedKey]int) {
	names := map[markedKey][]string{}
	first := map[markedKey]int{}
	out := diags[:0]
	for _, d := range diags {
		base, name, ok := splitMarked(d.Message, mark, end)
		if !ok || !marked(d) {
			out = append(out, d)
			continue
		}
		k := markedKey{d.At, d.Code, base}
		if others[k] {
			continue
		}
		if _, ok := first[k]; !ok {
			first[k] = len(out)
			out = append(out, d)
		}
		if !slices.Contains(names[k], name) {
			names[k] = append(names[k], name)
		}
	}
	for _, ns := range names {
		slices.Sort(ns)
	}
	return out, names, first
}

// mergeDeclaredWhen makes one warning of a class body's problem that the
// runs declaring the class under different conditions each report
// (stanchan/puppet-control's profile::openvmtools, included by
// base_redhat and base_debian under conditions of their own: two warnings
// on one place), naming every condition, in a stable order.
func (a *analyzer) mergeDeclaredWhen() {
	const mark = " is declared when "
	out, conds, first := foldMarked(a.diags, mark, ")", func(d analysis.Diagnostic) bool {
		return d.Severity == analysis.Warning && d.Template == ""
	}, nil)
	for k, cs := range conds {
		if len(cs) > 1 {
			out[first[k]].Message = k.base + mark + strings.Join(cs, ", or when ") + ")"
		}
	}
	a.diags = out
}

// dropEchoes drops a hint or information that says at one place what an
// error or a warning there says more surely: a run that compiles a class
// for certain fails on its missing target, and the run of a class
// nothing declares (alone: "the classes its callers include may declare
// it") must not contradict it at the same characters (AAFC-BICoE's
// nova::packages: an error and a hint on one reference).
func (a *analyzer) dropEchoes() {
	type key struct {
		at         source.Span
		code, base string
	}
	base := func(m string) string {
		if i := strings.IndexAny(m, "\n"); i >= 0 {
			m = m[:i]
		}
		if i := strings.Index(m, " ("); i >= 0 {
			m = m[:i]
		}
		return m
	}
	sure := map[key]bool{}
	for _, d := range a.diags {
		if d.Severity == analysis.Error || d.Severity == analysis.Warning {
			sure[key{d.At, d.Code, base(d.Message)}] = true
		}
	}
	if len(sure) == 0 {
		return
	}
	out := a.diags[:0]
	for _, d := range a.diags {
		if (d.Severity == analysis.Hint || d.Severity == analysis.Info) && sure[key{d.At, d.Code, base(d.Message)}] {
			continue
		}
		out = append(out, d)
	}
	a.diags = out
}
