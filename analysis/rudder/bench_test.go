package rudder

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// genExport writes one JSON export with the given numbers of rules and
// directives: every rule applies 10 directives; techniques cycle through
// unique, merged and separated ones so every generation path runs.
func genExport(rules, directives int) []byte {
	var b strings.Builder
	b.WriteString(`{"techniques":[`)
	kinds := []string{`"multiInstance":false`, `"multiInstance":true,"policyGeneration":"merged"`, `"multiInstance":true,"policyGeneration":"separated"`}
	for t := 0; t < 30; t++ {
		if t > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"tech%d","version":"1.0","name":"Technique %d",%s}`, t, t, kinds[t%3])
	}
	b.WriteString("],\n\"directives\":[\n")
	for d := 0; d < directives; d++ {
		if d > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id":"d%d","displayName":"%02d. directive %d","techniqueName":"tech%d","techniqueVersion":"1.0","priority":%d,"enabled":true,"parameters":{"section":{"name":"sections","vars":[{"var":{"name":"X","value":"%d"}}]}}}`, d, d%100, d, d%30, d%11, d)
	}
	b.WriteString("],\n\"rules\":[\n")
	for r := 0; r < rules; r++ {
		if r > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id":"r%d","displayName":"%03d. rule %d","targets":["special:all"],"enabled":true,"directives":[`, r, r%1000, r)
		for k := 0; k < 10; k++ {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"d%d"`, (r*7+k*13)%directives)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

func benchAnalyze(b *testing.B, rules, directives int) {
	text := genExport(rules, directives)
	b.SetBytes(int64(len(text)))
	ws := source.NewWorkspace()
	for i := 0; i < b.N; i++ {
		// A fresh system each time: no parse cache, the cold path.
		file := source.NewFile("untitled:export.json", "", text)
		in := analysis.Input{Ctx: context.Background(), Workspace: ws}
		res := analysis.Analyze(New(), in, []*source.File{file})
		if len(res.Runs) == 0 || len(res.Runs[0].Steps) == 0 {
			b.Fatal("no run")
		}
	}
}

func BenchmarkAnalyze100Rules500Directives(b *testing.B)   { benchAnalyze(b, 100, 500) }
func BenchmarkAnalyze1000Rules5000Directives(b *testing.B) { benchAnalyze(b, 1000, 5000) }
func BenchmarkImportJSON5000Directives(b *testing.B) {
	text := genExport(1000, 5000)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		New().(*system).parse(source.NewFile("untitled:x.json", "", text))
	}
}
