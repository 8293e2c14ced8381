package rudder

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

// TestFixtures checks every txtar under testdata: the policy order Rudder
// would generate for the node and the diagnostics.
func TestFixtures(t *testing.T) {
	analysistest.Run(t, New, "testdata")
}
