package lsp_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// toy is a minimal system used to test the server on its own: each line of
// a .toy file is `step NAME` or `NAME after OTHER`. It exercises every
// piece of the neutral graph the server consumes (nodes, edges with spans,
// links, runs, cycle and missing-target diagnostics) without depending on
// any real configuration-management system.
type toy struct{}

func (toy) Name() string                           { return "toy" }
func (toy) Flags() []analysis.Flag                 { return nil }
func (toy) Owns(path string, _ func() []byte) bool { return strings.HasSuffix(path, ".toy") }
func (toy) OwnsLanguage(id string) bool            { return id == "toy" }

func (toy) Analyze(req *analysis.Request) *analysis.Result {
	res := &analysis.Result{}
	for _, f := range req.Files {
		analyzeToyFile(res, f)
	}
	return res
}

// analyzeToyFile adds one file's steps, edges and run: each file is its
// own little program.
func analyzeToyFile(res *analysis.Result, f *source.File) {
	g := &res.Graph
	first := len(g.Nodes)
	byName := map[string]*analysis.Node{}
	type after struct {
		node  *analysis.Node
		other string
		at    source.Span
	}
	var afters []after
	{
		off := 0
		for _, line := range bytes.SplitAfter(f.Text, []byte("\n")) {
			text := strings.TrimRight(string(line), "\r\n")
			fields := strings.Fields(text)
			span := func(word string) source.Span {
				i := strings.LastIndex(text, word)
				return source.Span{URI: f.URI, Start: off + i, End: off + i + len(word)}
			}
			switch {
			case len(fields) == 2 && fields[0] == "step":
				n := g.Add(&analysis.Node{Kind: "step", Ref: "Step[" + fields[1] + "]", Decl: span(fields[1]),
					Facts: []analysis.Fact{{Label: "toy", Value: "yes"}}})
				byName[fields[1]] = n
			case len(fields) == 3 && fields[1] == "after":
				if n := byName[fields[0]]; n != nil {
					afters = append(afters, after{n, fields[2], span(fields[2])})
				}
			case len(fields) > 0:
				res.Diags = append(res.Diags, analysis.Diagnostic{At: span(fields[0]), Severity: analysis.Error, Code: "syntax", Message: "cannot read: " + text})
			}
			off += len(line)
		}
	}
	for _, a := range afters {
		other := byName[a.other]
		if other == nil {
			// In toy, a step after a missing one never runs.
			res.Diags = append(res.Diags, analysis.Diagnostic{At: a.at, Severity: analysis.Error, Code: "missing-target",
				Message: fmt.Sprintf("Could not find step %q", a.other), NeverRuns: true})
			continue
		}
		g.Connect(&analysis.Edge{From: other, To: a.node, Kind: analysis.Order, Reason: "after", At: a.at})
		res.Links = append(res.Links, analysis.Link{At: a.at, Nodes: []*analysis.Node{other}})
	}
	nodes := g.Nodes[first:]
	for _, c := range analysis.Cycles(nodes, g.Edges, analysis.ByIndex) {
		var names []string
		for _, n := range analysis.CycleNodes(c) {
			names = append(names, n.Ref)
		}
		var rel []analysis.Related
		for _, e := range c {
			rel = append(rel, analysis.Related{At: e.At, Message: e.From.Ref + " => " + e.To.Ref})
		}
		for _, e := range c {
			res.Diags = append(res.Diags, analysis.Diagnostic{At: e.To.Decl, Severity: analysis.Error, Code: "cycle",
				Message: "Found 1 dependency cycle: (" + strings.Join(names, " => ") + ")", Related: rel})
		}
	}
	order, stuck := analysis.Toposort(nodes, g.Edges, analysis.ByIndex)
	run := analysis.Run{Name: "toy", Entry: f.URI, Refused: len(stuck) > 0}
	for _, n := range order {
		run.Steps = append(run.Steps, analysis.Step{Node: n, Label: n.Ref})
	}
	res.Runs = append(res.Runs, run)
}

// Tokens makes toy a Tokenizer: `step` is a keyword, the name after it a
// declared variable, `after` a relation operator, other names variables;
// `#` starts a comment. Nested on purpose: the whole line of a step is a
// string token its words cut (the server flattens nesting).
func (toy) Tokens(f *source.File) []analysis.Token {
	var out []analysis.Token
	off := 0
	for _, line := range bytes.SplitAfter(f.Text, []byte("\n")) {
		text := strings.TrimRight(string(line), "\r\n")
		if i := strings.IndexByte(text, '#'); i >= 0 {
			out = append(out, analysis.Token{Start: off + i, End: off + len(text), Kind: analysis.TokComment})
			text = text[:i]
		}
		fields := strings.Fields(text)
		at := 0
		for i, w := range fields {
			j := strings.Index(text[at:], w) + at
			at = j + len(w)
			t := analysis.Token{Start: off + j, End: off + at, Kind: analysis.TokVariable}
			switch {
			case w == "step" && i == 0:
				t.Kind = analysis.TokKeyword
				out = append(out, analysis.Token{Start: off + j, End: off + len(text), Kind: analysis.TokString})
			case w == "after" && i == 1:
				t.Kind, t.Mods = analysis.TokOperator, analysis.ModRelation
			case i == 1 && fields[0] == "step":
				t.Mods = analysis.ModDeclaration
			}
			out = append(out, t)
		}
		off += len(line)
	}
	return out
}
