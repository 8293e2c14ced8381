package salt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func TestDebugEdges(t *testing.T) {
	entry := os.Getenv("SALT_DEBUG")
	if entry == "" {
		t.Skip()
	}
	abs, _ := filepath.Abs(entry)
	ws := source.NewWorkspace()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: source.PathToURI(abs), Settings: analysis.Settings{"salt.fileRoot": os.Getenv("SALT_ROOT")}}
	f := ws.Lookup(abs)
	res := analysis.Analyze(New(), in, []*source.File{f})
	for _, e := range res.Graph.Edges {
		fmt.Printf("%s -> %s [%s] %s\n", e.From.Ref, e.To.Ref, e.Reason, analysis.Where(ws, "", e.At))
	}
	for _, d := range res.Diags {
		fmt.Println(analysis.CheckLine(ws, "", d))
	}
}
