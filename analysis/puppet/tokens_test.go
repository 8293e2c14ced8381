package puppet_test

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzTokens: on the seeds of every fuzz target of the parser, the
// fixtures and the examples, highlighting stays within the text, flattens
// into sorted tokens that do not overlap, and gives after an edit what a
// fresh system gives.
func FuzzTokens(f *testing.F) {
	for _, s := range analysistest.ParserSeeds(f, "../../parser/puppet") {
		f.Add(s)
	}
	for _, dir := range []string{"testdata", "../../examples/puppet", "../../cmd/ordering-lsp/testdata/markers"} {
		for _, s := range analysistest.FixtureInputs(f, dir, ".pp") {
			f.Add(s)
		}
	}
	for _, dir := range []string{"../../examples/puppet"} {
		for _, s := range analysistest.FilesIn(f, dir, ".pp") {
			f.Add(s)
		}
	}
	sys := puppet.New().(analysis.Tokenizer)
	fresh := func() analysis.Tokenizer { return puppet.New().(analysis.Tokenizer) }
	f.Fuzz(func(t *testing.T, src []byte) {
		analysistest.CheckTokens(t, sys, fresh, source.NewFile("file:///fuzz/site.pp", "", src), analysistest.EditOf(src))
	})
}
