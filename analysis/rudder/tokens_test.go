package rudder_test

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzTokens: on the seeds of every fuzz target of the parser, the
// fixtures and the examples, highlighting stays within the text, flattens
// into sorted tokens that do not overlap, and gives after an edit what a
// fresh system gives.
func FuzzTokens(f *testing.F) {
	for _, s := range analysistest.ParserSeeds(f, "../../parser/rudder") {
		f.Add(s)
	}
	for _, dir := range []string{"testdata", "../../cmd/ordering-lsp/testdata/markers"} {
		for _, s := range analysistest.FixtureInputs(f, dir, ".json", ".xml", ".yml") {
			f.Add(s)
		}
	}
	for _, dir := range []string{"../../examples/rudder"} {
		for _, s := range analysistest.FilesIn(f, dir, ".json", ".xml", ".yml") {
			f.Add(s)
		}
	}
	sys := rudder.New().(analysis.Tokenizer)
	fresh := func() analysis.Tokenizer { return rudder.New().(analysis.Tokenizer) }
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, name := range []string{"export.json", "techniques/t/1.0/metadata.xml", "techniques/t/technique.yml", "rules/r.xml"} {
			analysistest.CheckTokens(t, sys, fresh, source.NewFile("file:///fuzz/"+name, "", src), analysistest.EditOf(src))
		}
	})
}
