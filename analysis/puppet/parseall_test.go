package puppet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// TestParseAllConcurrent: a workspace big enough to be parsed on every
// worker gives the same answer as one parsed file by file (run it with
// -race: the parse cache is shared by the workers).
func TestParseAllConcurrent(t *testing.T) {
	ar := &txtar.Archive{Comment: []byte("entry: -\n")}
	site := "node default {\n"
	for i := range 40 {
		site += fmt.Sprintf("  include m%d\n", i)
		next := ""
		if i > 0 {
			next = fmt.Sprintf("  notify { 'n%d': require => Notify['n%d'] }\n", i, i-1)
		} else {
			next = "  notify { 'n0': }\n"
		}
		ar.Files = append(ar.Files, txtar.File{Name: fmt.Sprintf("modules/m%d/manifests/init.pp", i), Data: []byte(fmt.Sprintf("class m%d {\n%s}\n", i, next))})
	}
	ar.Files = append(ar.Files, txtar.File{Name: "manifests/site.pp", Data: []byte(site + "}\n")})
	one := New().(*System)
	one.Workers = 1
	many := New().(*System)
	many.Workers = 4
	a, b := analysistest.Load(t, one, ar), analysistest.Load(t, many, ar)
	ra, rb := runs(a.Result), runs(b.Result)
	if ra != rb || !strings.Contains(ra, "Notify[n39]") {
		t.Fatalf("one worker:\n%s\nfour:\n%s", ra, rb)
	}
}

func runs(res *analysis.Result) string {
	var sb strings.Builder
	for _, r := range res.Runs {
		sb.WriteString(r.Name + ":")
		for _, st := range r.Steps {
			sb.WriteString(" " + st.Label)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}
