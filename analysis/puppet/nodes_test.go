package puppet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestNodes: each testdata/nodes/*.txtar is a workspace with a fact-set
// folder in factsets/. want/nodes lists every node the workspace knows
// (fact sets and node-block names), its platform, whether it has data,
// and each run's order as that node gets it (ordering.node set to it).
// want/check is `check` over the matrix: each problem once, with the
// nodes it occurs on.
func TestNodes(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "nodes", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			for _, f := range ar.Files {
				if strings.HasPrefix(f.Name, "want/") {
					continue
				}
				fp := filepath.Join(dir, filepath.FromSlash(f.Name))
				os.MkdirAll(filepath.Dir(fp), 0o755)
				if err := os.WriteFile(fp, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ws := source.NewWorkspace(dir)
			settings := analysis.Settings{"puppet.facts": "factsets"}
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings}
			sys := puppet.New()
			systems := []analysis.System{sys}
			files := analysis.Files(systems, in)
			got := map[string]string{}
			var lines []string
			for _, n := range analysis.ListNodes(systems, in, files) {
				nin := in
				nin.Settings = analysis.Settings{"puppet.facts": "factsets", analysis.NodeSetting: n.Name}
				res := analysis.Analyze(sys, nin, files[sys])
				kind := "name"
				if n.Data {
					kind = "data"
				}
				var runs []string
				for _, r := range res.Runs {
					if strings.HasPrefix(r.Name, "class ") || strings.HasPrefix(r.Name, "define ") {
						continue
					}
					var steps []string
					for _, s := range r.Steps {
						steps = append(steps, s.Label)
					}
					ref := ""
					if r.Refused {
						ref = " (refused)"
					}
					runs = append(runs, fmt.Sprintf("%s%s: %s", r.Name, ref, strings.Join(steps, " ")))
				}
				lines = append(lines, fmt.Sprintf("%s (%s) %s: %s", n.Name, n.Detail, kind, strings.Join(runs, "; ")))
			}
			got["want/nodes"] = joinLines(lines)
			res, _ := analysis.AnalyzeNodes(sys, analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings, Once: true, DiagnosticsOnly: true}, files[sys])
			var ds []string
			if res != nil {
				analysis.SortDiagnostics(res.Diags)
				for _, d := range res.Diags {
					ds = append(ds, analysis.CheckLine(ws, dir, d))
				}
			}
			sort.Strings(ds)
			got["want/check"] = joinLines(ds)
			for _, f := range ar.Files {
				if g, ok := got[f.Name]; ok && g != string(f.Data) {
					if updating() {
						f.Data = []byte(g)
						continue
					}
					t.Errorf("%s mismatch\n--- want\n%s--- got\n%s", f.Name, f.Data, g)
				}
			}
			if updating() {
				for i := range ar.Files {
					if g, ok := got[ar.Files[i].Name]; ok {
						ar.Files[i].Data = []byte(g)
					}
				}
				os.WriteFile(p, txtar.Format(ar), 0o644)
			}
		})
	}
}
