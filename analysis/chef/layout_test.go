package chef_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
)

// A comment typed into a policy or recipe moves the last result (the
// language server's early cutoff): it must be the fresh analysis's.
func TestLayoutEditsMoveResults(t *testing.T) {
	analysistest.CheckLayoutEdits(t, chef.New, "testdata", 20)
}

// The same on a real repository, opt-in:
//
//	ORDERING_LAYOUT_DIR=/work/corpus/chef/REPO ORDERING_LAYOUT_EDITS=30 \
//	  go test -run TestLayoutEditsMoveResultsIn -v ./analysis/chef/
func TestLayoutEditsMoveResultsIn(t *testing.T) {
	dir := os.Getenv("ORDERING_LAYOUT_DIR")
	if dir == "" {
		t.Skip("set ORDERING_LAYOUT_DIR to a Chef repository")
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LAYOUT_EDITS"))
	analysistest.CheckLayoutEditsIn(t, chef.New, dir, max(n, 10))
}
