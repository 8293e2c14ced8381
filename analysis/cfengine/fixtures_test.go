package cfengine

import (
	"os"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

func TestFixtures(t *testing.T) {
	analysistest.Run(t, New, "testdata/fixtures")
}

// A comment typed into a policy file moves the last result (the language
// server's early cutoff): it must be the fresh analysis's.
func TestLayoutEditsMoveResults(t *testing.T) {
	analysistest.CheckLayoutEdits(t, New, "testdata", 20)
}

// The same on a real policy set, opt-in:
//
//	ORDERING_LAYOUT_DIR=/work/corpus/cfengine/masterfiles ORDERING_LAYOUT_EDITS=30 \
//	  go test -run TestLayoutEditsMoveResultsIn -v ./analysis/cfengine/
func TestLayoutEditsMoveResultsIn(t *testing.T) {
	dir := os.Getenv("ORDERING_LAYOUT_DIR")
	if dir == "" {
		t.Skip("set ORDERING_LAYOUT_DIR to a CFEngine policy set")
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LAYOUT_EDITS"))
	analysistest.CheckLayoutEditsIn(t, New, dir, max(n, 10))
}
