package main

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// TestRegexpsCompile: the package-level expressions of every system are
// compiled at their first use (internal/lazyre), not when the program
// starts; the program links them all, so here each one compiles.
func TestRegexpsCompile(t *testing.T) {
	if expr, err := lazyre.CompileAll(); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
}
