package salt

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestNodesMatrix: the minions of salt.minions are the nodes Salt knows
// (analysis.NodeLister), and a check over every node, whether the
// generic analysis.AnalyzeNodes or Salt's own pass for `check` runs it,
// finds the one problem of testdata/fixtures/node_db02.txtar on db02
// only (real Salt's top selections: only db02 gets roles.web without
// roles.app).
func TestNodesMatrix(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/fixtures/node_db02.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	analysistest.WriteInputs(t, root, ar)
	settings := analysis.Settings{"salt.minions": "minions"}
	ws := source.NewWorkspace(root)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings, DiagnosticsOnly: true}
	sys := New()
	files := analysis.Files([]analysis.System{sys}, in)[sys]

	var names []string
	for _, n := range sys.(analysis.NodeLister).Nodes(&analysis.Request{Workspace: ws, Settings: settings, Files: files}) {
		if !n.Data {
			t.Errorf("minion %s listed without data", n.Name)
		}
		names = append(names, n.Name)
	}
	if want := []string{"db01", "db02", "web01", "web03"}; !slices.Equal(names, want) {
		t.Fatalf("nodes = %v, want %v", names, want)
	}

	check := func(how string, res *analysis.Result) {
		t.Helper()
		var found []string
		for _, d := range res.Diags {
			if d.Severity == analysis.Error {
				found = append(found, strings.Join(d.Nodes, ",")+" "+d.Message)
			}
		}
		if len(found) != 1 || !strings.HasPrefix(found[0], "db02 The following requisites were not found:") {
			t.Errorf("%s: errors = %q, want the missing app_cfg on db02 only", how, found)
		}
	}
	// Salt analyses every minion itself: the generic per-node pass leaves
	// it alone rather than analysing each minion a second time
	if generic, _ := analysis.AnalyzeNodes(New(), in, files); generic != nil {
		t.Errorf("analysis.AnalyzeNodes analysed Salt's minions again")
	}
	check("salt's own pass", analysis.Analyze(New(), in, files))
}
