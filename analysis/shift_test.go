package analysis

import (
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
