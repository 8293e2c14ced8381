package chef_test

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
)

// TestFixtures runs every txtar case under testdata: RFC 097's example,
// chef-cli's merge rules, include trees (diamonds, loops, conflicts at
// depth), DSL coverage and lock files.
func TestFixtures(t *testing.T) {
	analysistest.Run(t, chef.New, "testdata")
}
