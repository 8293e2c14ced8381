package analysistest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What the checks of edits a result follows without an analysis share
// (layout.go, inert.go, dropped.go).

// serverFixture loads the fixture at p (a txtar archive, or one file
// alone) as the language server sees a workspace: no entry file.
func serverFixture(t *testing.T, sys analysis.System, p string) *Outcome {
	t.Helper()
	var ar *txtar.Archive
	if strings.HasSuffix(p, ".txtar") {
		var err error
		if ar, err = txtar.ParseFile(p); err != nil {
			t.Fatal(err)
		}
	} else {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ar = &txtar.Archive{Files: []txtar.File{{Name: filepath.Base(p), Data: data}}}
	}
	ar.Comment = append(append([]byte(nil), ar.Comment...), "\nentry: -\n"...)
	return Load(t, sys, ar)
}

// resultFiles are the files out's result analysed, as its workspace has
// them.
func resultFiles(out *Outcome) []*source.File {
	var files []*source.File
	for _, u := range out.Result.Files {
		if f := analysis.FileOf(out.WS, u); f != nil {
			files = append(files, f)
		}
	}
	return files
}

// linesOf answers the 1-based line of an offset of a document of ws (0
// when unknown), as ShiftResult asks.
func linesOf(ws *source.Workspace) func(uri string, off int) int {
	return func(uri string, off int) int {
		if f := analysis.FileOf(ws, uri); f != nil {
			l, _ := f.Line1Col1(off)
			return l
		}
		return 0
	}
}

// freshAnalysis is a new system's analysis of ws, with out's settings.
func freshAnalysis(newSystem func() analysis.System, out *Outcome, ws *source.Workspace) *analysis.Result {
	in := out.Input
	in.Ctx, in.Workspace = context.Background(), ws
	sys := newSystem()
	return analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
}
