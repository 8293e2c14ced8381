package puppet_test

import (
	"os"
	"strconv"
	"testing"
)

// TestWriteGenerated writes the benchmark manifest (GEN_OUT=file GEN_N=n),
// to time the real `puppet apply --noop` on the same input.
func TestWriteGenerated(t *testing.T) {
	out := os.Getenv("GEN_OUT")
	if out == "" {
		t.Skip("set GEN_OUT and GEN_N")
	}
	n, _ := strconv.Atoi(os.Getenv("GEN_N"))
	if err := os.WriteFile(out, genManifest(n), 0o644); err != nil {
		t.Fatal(err)
	}
}
