package chef_test

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzTokens: on the seeds of every fuzz target of the parser, the
// fixtures and the examples, highlighting stays within the text, flattens
// into sorted tokens that do not overlap, and gives after an edit what a
// fresh system gives.
func FuzzTokens(f *testing.F) {
	for _, s := range analysistest.ParserSeeds(f, "../../parser/chef") {
		f.Add(s)
	}
	for _, dir := range []string{"testdata/dsl", "testdata/include", "testdata/merge", "testdata/rfc097", "../../cmd/ordering-lsp/testdata/markers"} {
		for _, s := range analysistest.FixtureInputs(f, dir, ".rb", ".json") {
			f.Add(s)
		}
	}
	for _, dir := range []string{"../../examples/chef"} {
		for _, s := range analysistest.FilesIn(f, dir, ".rb", ".json") {
			f.Add(s)
		}
	}
	sys := chef.New().(analysis.Tokenizer)
	fresh := func() analysis.Tokenizer { return chef.New().(analysis.Tokenizer) }
	f.Fuzz(func(t *testing.T, src []byte) {
		analysistest.CheckTokens(t, sys, fresh, source.NewFile("file:///fuzz/Policyfile.rb", "", src), analysistest.EditOf(src))
		analysistest.CheckTokens(t, sys, nil, source.NewFile("file:///fuzz/app.lock.json", "", src), nil)
	})
}
