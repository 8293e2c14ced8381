package cfengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzAnalyze: no policy text may make the analysis panic (an internal
// error) or hang, cold or with a warm system that saw another text.
func FuzzAnalyze(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/oracle/*.cf")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	warm := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		ws := source.NewWorkspace()
		file := source.NewFile("file:///fuzz/policy.cf", "/fuzz/policy.cf", data)
		ws.SetOverlay(file)
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: file.URI, Settings: analysis.Settings{}}
		for _, sys := range []analysis.System{New(), warm} {
			res := analysis.Analyze(sys, in, []*source.File{file})
			for _, d := range res.Diags {
				if d.Code == "internal-error" {
					t.Fatalf("%s", d.Message)
				}
			}
		}
	})
}
