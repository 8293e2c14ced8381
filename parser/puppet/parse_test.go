package puppet

import (
	"os"
	"strings"
	"testing"
)

func TestParseDump(t *testing.T) {
	p := os.Getenv("PP")
	if p == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(p)
	f := Parse(src)
	for _, e := range f.Errors {
		t.Logf("error %d-%d %q: %s", e.Pos, e.End, src[e.Pos:e.End], e.Msg)
	}
	for _, s := range f.Stmts {
		t.Logf("%T %q", s, strings.SplitN(string(src[s.Span().Pos:s.Span().End]), "\n", 2)[0])
	}
}

func TestLexDump(t *testing.T) {
	p := os.Getenv("PP")
	if p == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(p)
	for _, tk := range Lex(src) {
		t.Logf("%v %q %d-%d nl=%v", tk.Kind, tk.Val, tk.Pos, tk.End, tk.NL)
	}
}
