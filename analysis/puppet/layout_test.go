package puppet_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// An edit is layout only when the lines it touches are comments or blank
// in both texts, as Puppet's own tokens say, and the code lines among them
// read the same.
func TestLayoutOnly(t *testing.T) {
	tk := puppet.New().(analysis.Tokenizer)
	base := "class a {\n  notify { 'x': }\n  $s = \"one\n# two\n\"\n  $h = @(END)\n  # in a heredoc\n  END\n}\n"
	for _, c := range []struct {
		name, cur string
		want      bool
	}{
		{"a comment line at the top", "# hello\n" + base, true},
		{"a blank line at the top", "\n" + base, true},
		{"a comment after code, on its own line", "class a {\n  # note\n  notify { 'x': }\n  $s = \"one\n# two\n\"\n  $h = @(END)\n  # in a heredoc\n  END\n}\n", true},
		{"a comment line changed inside a string", "class a {\n  notify { 'x': }\n  $s = \"one\n# three\n\"\n  $h = @(END)\n  # in a heredoc\n  END\n}\n", false},
		{"a line commented out", "class a {\n  # notify { 'x': }\n  $s = \"one\n# two\n\"\n  $h = @(END)\n  # in a heredoc\n  END\n}\n", false},
		{"code changed", "class a {\n  notify { 'y': }\n  $s = \"one\n# two\n\"\n  $h = @(END)\n  # in a heredoc\n  END\n}\n", false},
		{"a comment line in a heredoc", "class a {\n  notify { 'x': }\n  $s = \"one\n# two\n\"\n  $h = @(END)\n  # in a heredoc\n  # more\n  END\n}\n", false},
		{"the same text", base, true},
	} {
		old := source.NewFile("file:///a.pp", "/a.pp", []byte(base))
		cur := source.NewFile("file:///a.pp", "/a.pp", []byte(c.cur))
		tokens := func(f *source.File) []analysis.Token { return analysis.FlattenTokens(tk.Tokens(f), f.Text) }
		if got := analysis.LayoutOnly(tokens, old, cur, analysis.NewShift(old.URI, old.Text, cur.Text)); got != c.want {
			t.Errorf("%s: layoutOnly = %v, want %v", c.name, got, c.want)
		}
	}
}

// A comment typed into a manifest moves the last result instead of
// analysing again (the language server's early cutoff): the moved result
// must be the fresh analysis's, words naming lines included.
func TestLayoutEditsMoveResults(t *testing.T) {
	analysistest.CheckLayoutEdits(t, puppet.New, "testdata", 20)
}

// The same on a real repository, opt-in:
//
//	ORDERING_LAYOUT_DIR=/work/corpus/puppet/puppetlabs-apache ORDERING_LAYOUT_EDITS=30 \
//	  go test -run TestLayoutEditsMoveResultsIn -v ./analysis/puppet/
func TestLayoutEditsMoveResultsIn(t *testing.T) {
	dir := os.Getenv("ORDERING_LAYOUT_DIR")
	if dir == "" {
		t.Skip("set ORDERING_LAYOUT_DIR to a Puppet repository")
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LAYOUT_EDITS"))
	analysistest.CheckLayoutEditsIn(t, puppet.New, dir, max(n, 10))
}
