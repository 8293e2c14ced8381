package puppet_test

import (
	"os"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// BenchmarkTokens highlights one manifest (ORDERING_TOKENS_FILE) again and
// again, its text unchanged: the highlighting parser's cache is warm.
func BenchmarkTokens(b *testing.B) {
	path := os.Getenv("ORDERING_TOKENS_FILE")
	if path == "" {
		b.Skip("ORDERING_TOKENS_FILE not set")
	}
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f := source.FileFromPath(path, text)
	sys := puppet.New().(analysis.Tokenizer)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		analysis.FlattenTokens(sys.Tokens(f), text)
	}
}
