package analysis

import (
	"reflect"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// A span moves with the text around a layout edit: before it stays,
// after it shifts, around it stretches, and one that begins or ends
// inside it, or is empty where text was inserted, has no answer.
func TestShiftSpan(t *testing.T) {
	const u = "file:///a.pp"
	old := "class a {\n  notify { 'x': }\n}\n"
	// both texts share "class a {\n  ": "# note\n  " is inserted at 12
	ins := NewShift(u, []byte(old), []byte("class a {\n  # note\n  notify { 'x': }\n}\n"))
	del := NewShift(u, []byte("# one\n# two\nclass a {}\n"), []byte("# one\nclass a {}\n")) // 6 bytes at 6
	for _, c := range []struct {
		name       string
		m          Shift
		start, end int
		want       source.Span
		ok         bool
	}{
		{"before the insertion", ins, 0, 7, source.Span{URI: u, Start: 0, End: 7}, true},
		{"ending where text is inserted", ins, 6, 12, source.Span{URI: u, Start: 6, End: 12}, true},
		{"starting where text is inserted", ins, 12, 27, source.Span{URI: u, Start: 21, End: 36}, true},
		{"after the insertion", ins, 21, 24, source.Span{URI: u, Start: 30, End: 33}, true},
		{"around the insertion", ins, 0, 28, source.Span{URI: u, Start: 0, End: 37}, true},
		{"empty where text is inserted", ins, 12, 12, source.Span{}, false},
		{"after the deletion", del, 12, 22, source.Span{URI: u, Start: 6, End: 16}, true},
		{"inside the deletion", del, 7, 9, source.Span{}, false},
		{"ending inside the deletion", del, 0, 8, source.Span{}, false},
		{"around the deletion", del, 0, 22, source.Span{URI: u, Start: 0, End: 16}, true},
	} {
		got, ok := c.m.Span(source.Span{URI: u, Start: c.start, End: c.end})
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
	}
	other := source.Span{URI: "file:///b.pp", Start: 12, End: 14}
	if got, ok := ins.Span(other); !ok || got != other {
		t.Errorf("a span of another document moved: %+v %v", got, ok)
	}
}

// Words that name lines keep their places as marks: moved through an
// edit above them, they name the new lines.
func TestLineMarks(t *testing.T) {
	const u = "file:///a.pp"
	oldText := "notify { 'a': }\nnotify { 'a': }\n"
	curText := "# c\n" + oldText
	tmpl := "already declared at (line: " + LineMark(source.Span{URI: u, Start: 0}) + "); cannot redeclare (line: " + LineMark(source.Span{URI: u, Start: 16}) + ")"
	lineIn := func(text string) func(string, int) int {
		return func(_ string, off int) int {
			f := source.NewFile(u, "/a.pp", []byte(text))
			l, _ := f.Line1Col1(off)
			return l
		}
	}
	if got, want := Lines(tmpl, lineIn(oldText)), "already declared at (line: 1); cannot redeclare (line: 2)"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	r := &Result{Diags: []Diagnostic{{At: source.Span{URI: u, Start: 26, End: 29}, Message: Lines(tmpl, lineIn(oldText)), Template: tmpl}}}
	moved, ok := ShiftResult(r, NewShift(u, []byte(oldText), []byte(curText)), lineIn(curText))
	if !ok {
		t.Fatal("ShiftResult refused a comment line at the top")
	}
	if got, want := moved.Diags[0].Message, "already declared at (line: 2); cannot redeclare (line: 3)"; got != want {
		t.Errorf("moved message = %q, want %q", got, want)
	}
	if got := moved.Diags[0].At; got.Start != 30 || got.End != 33 {
		t.Errorf("moved span = %+v", got)
	}
	if r.Diags[0].Message == moved.Diags[0].Message {
		t.Errorf("ShiftResult changed the result it moved")
	}
	if got := Lines("a broken \uFFF9mark", lineIn(oldText)); got != "a broken \uFFF9mark" {
		t.Errorf("a broken mark: %q", got)
	}
}

// A moved result changes only what lies in the edited document, and
// what points at it: a node of another file whose container moved gets
// the moved container, a node whose words name a moved line gets them
// again, an edge at a moved node is a new edge, and every other node and
// edge is shared. Its indexes (where each node runs, the edges at each
// node), inherited from the old result, answer as indexes built afresh.
func TestShiftResultMovesWhatPointsAtTheEdit(t *testing.T) {
	const a, b, c = "file:///a.pp", "file:///b.pp", "file:///c.pp"
	sp := func(u string, s, e int) source.Span { return source.Span{URI: u, Start: s, End: e} }
	class := &Node{Kind: "class", Ref: "Class[A]", Decl: sp(a, 20, 30), Full: sp(a, 20, 40), Container: true}
	inner := &Node{Kind: "resource", Ref: "File[/x]", Decl: sp(b, 5, 9), Full: sp(b, 5, 20), Parent: class}
	words := &Node{Kind: "resource", Ref: "Notify[w]", Decl: sp(b, 30, 35), Full: sp(b, 30, 40),
		Facts: []Fact{{Label: "note", Template: "see " + LineMark(sp(a, 25, 26))}}}
	other := &Node{Kind: "resource", Ref: "Package[p]", Decl: sp(c, 0, 5), Full: sp(c, 0, 10), Container: true}
	anchor := &Node{Kind: "anchor", Ref: "Package[p]", Decl: sp(c, 0, 5), Full: sp(c, 0, 10), Hidden: true, Parent: other}
	nodes := []*Node{class, inner, words, other, anchor}
	for i, n := range nodes {
		n.Index = i
	}
	edges := []*Edge{
		{From: inner, To: other, Kind: Order, At: sp(b, 12, 14)},
		{From: other, To: words, Kind: Order, At: sp(c, 6, 8)},
		{From: anchor, To: other, Kind: Order, At: sp(c, 1, 2)},
	}
	r := &Result{System: "puppet", Graph: Graph{Nodes: nodes, Edges: edges},
		Runs: []Run{{Name: "one", Steps: []Step{{Node: other}, {Node: inner}, {Node: words}}}, {Name: "two", Steps: []Step{{Node: other}}}}}
	r.Index()
	old := []byte("# header line\n     class a { notify { 'n': } }\n")
	cur := append([]byte("# one more line\n"), old...)
	line := func(uri string, off int) int { return 7 }
	out, ok := ShiftResult(r, NewShift(a, old, cur), line)
	if !ok {
		t.Fatal("refused a comment line typed above everything")
	}
	g := out.Graph.Nodes
	if g[0] == class || g[0].Decl != sp(a, 36, 46) {
		t.Errorf("the class did not move: %+v", g[0].Decl)
	}
	if g[1] == inner || g[1].Parent != g[0] || g[1].Decl != inner.Decl {
		t.Errorf("a node of b.pp inside the moved class keeps the old class: parent %p, moved class %p", g[1].Parent, g[0])
	}
	if g[2] == words || g[2].Facts[0].Template != "see "+LineMark(sp(a, 41, 42)) || g[2].Facts[0].Value != "see 7" {
		t.Errorf("words naming a moved line were not written again: %+v", g[2].Facts)
	}
	if g[3] != other || g[4] != anchor || out.Graph.Edges[2] != edges[2] {
		t.Error("a node or edge nothing of which moved was copied")
	}
	if e := out.Graph.Edges[0]; e == edges[0] || e.From != g[1] {
		t.Error("the edge from a moved node still names the old one")
	}
	if e := out.Graph.Edges[1]; e == edges[1] || e.To != g[2] {
		t.Error("the edge to a moved node still names the old one")
	}
	if &out.Runs[1].Steps[0] != &r.Runs[1].Steps[0] {
		t.Error("a run holding no moved node was copied")
	}
	if out.Runs[0].Steps[1].Node != g[1] || r.Runs[0].Steps[1].Node != inner {
		t.Error("the steps of a moved node are wrong, or the old result changed")
	}
	fresh := &Result{System: out.System, Graph: out.Graph, Runs: out.Runs}
	for i, n := range g {
		if got, want := out.Positions(n), fresh.Positions(n); !reflect.DeepEqual(got, want) {
			t.Errorf("node %d: inherited positions %+v, built afresh %+v", i, got, want)
		}
		if got, want := out.Relations(n), fresh.Relations(n); !reflect.DeepEqual(got, want) {
			t.Errorf("node %d: inherited relations %+v, built afresh %+v", i, got, want)
		}
	}
}

// A Follow that panics is an edit the result does not follow: the
// caller analyses it instead.
func TestFollowEditSurvivesAPanic(t *testing.T) {
	r := &Result{Follow: func(*Result, *source.File, *source.File, Shift, func(string, int) int) (*Result, bool) {
		panic("a bug in a judgement")
	}}
	f := source.NewFile("file:///x.pp", "/x.pp", []byte("x"))
	if got, ok := r.FollowEdit(f, f, Shift{URI: f.URI}, nil); ok || got != nil {
		t.Errorf("FollowEdit after a panic: %v, %v; want nil, false", got, ok)
	}
}
