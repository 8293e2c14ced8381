package salt_test

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzTokens: on the seeds of every fuzz target of the parser, the
// fixtures and the examples, highlighting stays within the text, flattens
// into sorted tokens that do not overlap, and gives after an edit what a
// fresh system gives.
func FuzzTokens(f *testing.F) {
	for _, s := range analysistest.ParserSeeds(f, "../../parser/salt") {
		f.Add(s)
	}
	for _, dir := range []string{"testdata/fixtures", "../../cmd/ordering-lsp/testdata/markers"} {
		for _, s := range analysistest.FixtureInputs(f, dir, ".sls") {
			f.Add(s)
		}
	}
	for _, dir := range []string{"testdata/oracle", "../../examples/salt"} {
		for _, s := range analysistest.FilesIn(f, dir, ".sls") {
			f.Add(s)
		}
	}
	sys := salt.New().(analysis.Tokenizer)
	fresh := func() analysis.Tokenizer { return salt.New().(analysis.Tokenizer) }
	f.Fuzz(func(t *testing.T, src []byte) {
		analysistest.CheckTokens(t, sys, fresh, source.NewFile("file:///fuzz/web/init.sls", "", src), analysistest.EditOf(src))
		analysistest.CheckTokens(t, sys, nil, source.NewFile("file:///fuzz/top.sls", "", src), nil)
	})
}
