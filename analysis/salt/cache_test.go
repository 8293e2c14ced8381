package salt

import (
	"fmt"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// summary renders everything a Result tells a user, for comparison.
func summary(res *analysis.Result, ws *source.Workspace, base string) string {
	var lines []string
	for _, r := range res.Runs {
		var steps []string
		for _, s := range r.Steps {
			steps = append(steps, s.Label+"|"+s.Note+"|"+s.Node.Ref)
		}
		lines = append(lines, fmt.Sprintf("run %s %s refused=%v: %s", r.Name, r.Entry, r.Refused, strings.Join(steps, "; ")))
	}
	ds := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(ds)
	for _, d := range ds {
		lines = append(lines, "diag "+analysis.CheckLine(ws, base, d)+fmt.Sprint(len(d.Related)))
	}
	for _, e := range res.Graph.Edges {
		lines = append(lines, fmt.Sprintf("edge %s -> %s %s %s %s", e.From.Ref, e.To.Ref, e.Kind, e.Reason, analysis.Where(ws, base, e.At)))
	}
	for _, l := range res.Links {
		var t []string
		for _, n := range l.Nodes {
			t = append(t, n.Ref)
		}
		for _, f := range l.Files {
			t = append(t, f.URI)
		}
		sort.Strings(t)
		lines = append(lines, "link "+analysis.Where(ws, base, l.At)+" "+strings.Join(t, ","))
	}
	for _, n := range res.Graph.Nodes {
		for _, f := range n.Facts {
			lines = append(lines, "fact "+n.Ref+" "+f.Label+": "+f.Value)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRunCacheSameAnswers: a system that replays cached runs after an edit
// says exactly what a fresh system says.
func TestRunCacheSameAnswers(t *testing.T) {
	root, middle := genHighstate(t, 8, 30)
	// plus the oracle cases in a second root
	oracle := t.TempDir()
	ents, _ := os.ReadDir(filepath.Join("testdata", "oracle"))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sls") {
			b, _ := os.ReadFile(filepath.Join("testdata", "oracle", e.Name()))
			os.WriteFile(filepath.Join(oracle, e.Name()), b, 0o644)
		}
	}
	ws := source.NewWorkspace(root, oracle)
	warm := New()
	for i := 0; i < 3; i++ {
		if i > 0 {
			orig, _ := os.ReadFile(middle)
			text := strings.Replace(string(orig), "- name: n", fmt.Sprintf("- name: edit%d", i), 1)
			if i == 2 {
				text += "\nbroken_requisite:\n  test.nop:\n    - require:\n      - test: nothere\n"
			}
			ws.SetOverlay(source.NewFile(source.PathToURI(middle), middle, []byte(text)))
		}
		got := summary(analyzeRoot(warm, ws, ""), ws, root)
		want := summary(analyzeRoot(New(), ws, ""), ws, root)
		if got != want {
			t.Fatalf("edit %d: cached analysis differs\n%s", i, analysistest.FirstDifference(want, got, "want", "got"))
		}
	}
}
