package lsp

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
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
		if got := layoutOnly(tokens, old, cur, newShift(old.URI, old.Text, cur.Text)); got != c.want {
			t.Errorf("%s: layoutOnly = %v, want %v", c.name, got, c.want)
		}
	}
}
