package salt

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestFixturesRooted runs the fixtures of testdata/rooted, whose files
// name absolute paths of the workspace (a master configuration's
// file_roots): `$ROOT` in the inputs and in want/diagnostics stands for
// the folder the inputs are written to. The workspace is analysed as the
// language server sees it (no entry file).
func TestFixturesRooted(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "rooted", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no fixtures under testdata/rooted")
	}
	sort.Strings(paths)
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			sub := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("$ROOT"), []byte(dir)) }
			in := &txtar.Archive{}
			want := ""
			for _, f := range ar.Files {
				if f.Name == "want/diagnostics" {
					want = string(sub(f.Data))
					continue
				}
				in.Files = append(in.Files, txtar.File{Name: f.Name, Data: sub(f.Data)})
			}
			analysistest.WriteInputs(t, dir, in)
			ws := source.NewWorkspace(dir)
			sys := New()
			input := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
			res := analysis.Analyze(sys, input, analysis.Files([]analysis.System{sys}, input)[sys])
			ds := append([]analysis.Diagnostic(nil), res.Diags...)
			analysis.SortDiagnostics(ds)
			var got strings.Builder
			for _, d := range ds {
				got.WriteString(analysis.CheckLine(ws, dir, d) + "\n")
			}
			if got.String() != want {
				if os.Getenv("SALT_ROOTED_SHOW") != "" {
					t.Logf("got (with $ROOT):\n%s", strings.ReplaceAll(got.String(), dir, "$ROOT"))
				}
				t.Errorf("want/diagnostics mismatch\n--- want\n%s--- got\n%s", want, got.String())
			}
		})
	}
}
