package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallJobRun: a job that cannot run says why; one that runs but
// leaves a folder it should fill unfilled is an error naming the folder;
// terminal colours are stripped from the lines passed on.
func TestInstallJobRun(t *testing.T) {
	j := InstallJob{Title: "Install x", Err: "neither r10k nor g10k is on PATH"}
	if err := j.Run(context.Background(), nil); err == nil || err.Error() != j.Err {
		t.Errorf("job with Err: %v", err)
	}
	dir := t.TempDir()
	fill := filepath.Join(dir, "modules", "foo")
	// The test binary running no test: a command that succeeds and prints nothing useful.
	j = InstallJob{Title: "Install foo", Dir: dir, Argv: []string{os.Args[0], "-test.run=^$"}, Fills: []string{fill}}
	if err := j.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "did not fill "+fill) {
		t.Errorf("unfilled: %v", err)
	}
	if err := os.MkdirAll(fill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background(), nil); err != nil {
		t.Errorf("filled: %v", err)
	}
	if got := stripANSI("\x1b[0;32mINFO\x1b[0m\t -> Deploying"); got != "INFO\t -> Deploying" {
		t.Errorf("stripANSI = %q", got)
	}
}
