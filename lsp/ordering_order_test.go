package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// ordering/order lists the runs that start at the file, then at most 50
// of the others that involve it, and says how many it left out: a class
// every role includes is in hundreds of runs, more than a view can show.
func TestOrderListsAtMost50OtherRuns(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 53; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.toy", i)), []byte(fmt.Sprintf("step s%d\n", i)), 0o644)
	}
	c, _ := lsptest.Start(t, []analysis.System{toy{}}, root, nil)
	type answer struct {
		Runs []struct {
			Name  string
			Entry string
		}
		Omitted int
	}
	var all answer
	if err := c.Call("ordering/order", map[string]any{}, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Runs) != 50 || all.Omitted != 3 {
		t.Errorf("whole workspace: %d runs listed, %d omitted; want 50 and 3", len(all.Runs), all.Omitted)
	}
	uri := source.PathToURI(filepath.Join(root, "f52.toy"))
	var one answer
	if err := c.Call("ordering/order", map[string]any{"uri": uri}, &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Runs) != 1 || one.Runs[0].Entry != uri || one.Omitted != 0 {
		t.Errorf("one file: %+v; want its own run only", one)
	}
}
