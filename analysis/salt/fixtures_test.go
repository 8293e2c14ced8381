package salt

import (
	"path/filepath"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

// TestFixtures checks the behaviours the oracle cases do not cover, one
// txtar fixture each; every fixture says in its comment where its
// expectation comes from (Salt's source, step by step).
func TestFixtures(t *testing.T) {
	analysistest.Run(t, New, filepath.Join("testdata", "fixtures"))
}
