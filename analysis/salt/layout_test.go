package salt

import (
	"os"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

// A comment typed into a state file moves the last result (the language
// server's early cutoff): it must be the fresh analysis's. testdata/layout
// holds the comment styles the fixtures lack (the edits type comments
// found in the fixtures), the fixtures the Jinja and YAML they meet.
func TestLayoutEditsMoveResults(t *testing.T) {
	analysistest.CheckLayoutEdits(t, New, "testdata", 20)
}

// The same on a real state tree, opt-in:
//
//	ORDERING_LAYOUT_DIR=/work/corpus/salt/heroes-salt ORDERING_LAYOUT_EDITS=30 \
//	  go test -run TestLayoutEditsMoveResultsIn -v ./analysis/salt/
func TestLayoutEditsMoveResultsIn(t *testing.T) {
	dir := os.Getenv("ORDERING_LAYOUT_DIR")
	if dir == "" {
		t.Skip("set ORDERING_LAYOUT_DIR to a Salt state tree")
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LAYOUT_EDITS"))
	analysistest.CheckLayoutEditsIn(t, New, dir, max(n, 10))
}
