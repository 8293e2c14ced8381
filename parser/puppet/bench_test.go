package puppet

import (
	"os"
	"path/filepath"
	"testing"
)

// corpusSources reads every .pp under $ORDERING_CORPUS (skips without it).
func corpusSources(b *testing.B) ([][]byte, int) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		b.Skip("set ORDERING_CORPUS")
	}
	var srcs [][]byte
	n := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".pp" {
			if s, err := os.ReadFile(p); err == nil {
				srcs = append(srcs, s)
				n += len(s)
			}
		}
		return nil
	})
	return srcs, n
}

// BenchmarkCorpusParse parses every manifest of the corpus once, cold,
// on one core, with the parser the analysis uses.
func BenchmarkCorpusParse(b *testing.B) {
	srcs, n := corpusSources(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range srcs {
			Parse(s)
		}
	}
}

// BenchmarkCorpusParseGrammar is BenchmarkCorpusParse with the
// participle grammar (grammar.go) in place of the hand parser.
func BenchmarkCorpusParseGrammar(b *testing.B) {
	srcs, n := corpusSources(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range srcs {
			toks := Lex(s)
			for _, r := range splitChunks(s, toks) {
				parseChunkGrammar(s, toks[r.a:r.b+1], &toks[r.b])
			}
		}
	}
}
