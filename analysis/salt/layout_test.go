package salt

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"os"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

// A comment typed into a state file moves the last result (the language
// server's early cutoff): it must be the fresh analysis's. testdata/layout
// holds the comment styles the fixtures lack (the edits type comments
// found in the fixtures), the fixtures the Jinja and YAML they meet.
func TestLayoutEditsMoveResults(t *testing.T) {
	analysistest.CheckLayoutEdits(t, New, "testdata", 20)
}

// The same on a real state tree, opt-in:
//
//	ORDERING_LAYOUT_DIR=/work/corpus/salt/heroes-salt ORDERING_LAYOUT_EDITS=30 \
//	  go test -run TestLayoutEditsMoveResultsIn -v ./analysis/salt/
func TestLayoutEditsMoveResultsIn(t *testing.T) {
	dir := os.Getenv("ORDERING_LAYOUT_DIR")
	if dir == "" {
		t.Skip("set ORDERING_LAYOUT_DIR to a Salt state tree")
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LAYOUT_EDITS"))
	analysistest.CheckLayoutEditsIn(t, New, dir, max(n, 10))
}

// Which comment and blank lines are layout only in an SLS file: those
// that change nothing Jinja renders for YAML to read. What Jinja does was
// settled with jinja2 3.1 and PyYAML (Salt's renderers), e.g.
// `a: 1\n{%- if true -%}\n# c\nb: 2\n{% endif %}` renders `a: 1# c\nb: 2`
// (a is '1# c'), `a: 1\n{#- c -#}\nb: 2\n` renders `a: 1b: 2` (an error),
// and `x: |\n  l1\n{# c #}\n  l2\n` gives x 'l1\n\nl2'.
func TestLayoutOnly(t *testing.T) {
	states := "a:\n  test.nop\n\nb:\n  test.nop\n"
	cases := []struct {
		name, old, cur string
		want           bool
	}{
		{"a comment between states", states, "a:\n  test.nop\n\n# c\nb:\n  test.nop\n", true},
		{"a blank line between states", states, "a:\n  test.nop\n\n\nb:\n  test.nop\n", true},
		{"a Jinja comment between states", states, "a:\n  test.nop\n{# c #}\n\nb:\n  test.nop\n", true},
		{"a comment taken out", "a:\n  test.nop\n  # c\nb:\n  test.nop\n", "a:\n  test.nop\nb:\n  test.nop\n", true},
		{"a comment typed first", states, "# c\n" + states, true},
		{"a comment above a loop", "{% for x in [1] %}\ns{{ x }}:\n  test.nop\n{% endfor %}\n", "# c\n{% for x in [1] %}\ns{{ x }}:\n  test.nop\n{% endfor %}\n", true},
		{"a Jinja comment that joins lines", states, "a:\n  test.nop\n{#- c -#}\n\nb:\n  test.nop\n", false},
		{"a comment joined to the text after a tag", "a:\n  test.nop\n{%- if x -%}\nb:\n  test.nop\n{% endif %}\n", "a:\n  test.nop\n{%- if x -%}\n# c\nb:\n  test.nop\n{% endif %}\n", false},
		{"a comment that stops a tag's stripping", "a:\n  test.nop\n\n{%- if x %}\nb:\n  test.nop\n{% endif %}\n", "a:\n  test.nop\n# c\n\n{%- if x %}\nb:\n  test.nop\n{% endif %}\n", false},
		{"a blank line next to a stripping tag (stripped whole)", "a:\n  test.nop\n{%- if x %}\nb: 1\n{% endif %}\n", "a:\n  test.nop\n\n{%- if x %}\nb: 1\n{% endif %}\n", true},
		{"a comment at a loop body's start", "{% for x in [1] %}\ns{{ x }}:\n  test.nop\n{% endfor %}\n", "{% for x in [1] %}\n# c\ns{{ x }}:\n  test.nop\n{% endfor %}\n", false},
		{"a Jinja comment in a block scalar", "f:\n  file.managed:\n    - contents: |\n        l1\n        l2\n", "f:\n  file.managed:\n    - contents: |\n        l1\n{# c #}\n        l2\n", false},
		{"a blank line after a block scalar", "f:\n  file.managed:\n    - contents: |+\n        l1\ng:\n  test.nop\n", "f:\n  file.managed:\n    - contents: |+\n        l1\n\ng:\n  test.nop\n", false},
		{"a comment in a plain scalar over lines", "a:\n  cmd.run:\n    - name: echo\n        one\n", "a:\n  cmd.run:\n    - name: echo\n# c\n        one\n", false},
		{"a comment in a set block", "{% set x %}\nl1\nl2\n{% endset %}\na:\n  test.nop\n", "{% set x %}\nl1\n# c\nl2\n{% endset %}\na:\n  test.nop\n", false},
		{"a comment above a shebang", "#!yaml\na:\n  test.nop\n", "# c\n#!yaml\na:\n  test.nop\n", false},
		{"a comment with Jinja in it", states, "a:\n  test.nop\n\n# {{ x }}\nb:\n  test.nop\n", false},
		{"a blank line in a file with a syntax error", "a:\n  test.nop: [x\nb:\n  test.nop\n", "a:\n  test.nop: [x\n\nb:\n  test.nop\n", false},
	}
	sys := New()
	tk := sys.(analysis.Tokenizer)
	tokens := func(f *source.File) []analysis.Token { return analysis.FlattenTokens(tk.Tokens(f), f.Text) }
	for _, c := range cases {
		old := source.NewFile("file:///srv/salt/a.sls", "/srv/salt/a.sls", []byte(c.old))
		cur := source.NewFile(old.URI, old.Path, []byte(c.cur))
		if got := analysis.LayoutOnlyBy(sys, tokens, old, cur, analysis.NewShift(old.URI, old.Text, cur.Text)); got != c.want {
			t.Errorf("%s: layout only %v, want %v", c.name, got, c.want)
		}
	}
}
