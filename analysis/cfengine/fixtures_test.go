package cfengine

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

func TestFixtures(t *testing.T) {
	analysistest.Run(t, New, "testdata/fixtures")
}
