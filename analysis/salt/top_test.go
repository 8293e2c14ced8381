package salt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestTopTargets: in the server, a top file with several targets gives
// one highstate per target ('*' states first, in top file order), so two
// roles that never meet on a machine may declare the same ID.
func TestTopTargets(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"top.sls":    "base:\n  '*':\n    - common\n  'web*':\n    - web\n  'db*':\n    - db\n",
		"common.sls": "common_pkg:\n  test.nop\n",
		"web.sls":    "service:\n  test.nop:\n    - name: nginx\n    - require:\n      - test: common_pkg\n",
		"db.sls":     "service:\n  test.nop:\n    - name: postgres\n",
	}
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(root, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := analyzeRoot(New(), source.NewWorkspace(root), "")
	got := map[string]string{}
	for _, r := range res.Runs {
		var steps []string
		for _, s := range r.Steps {
			steps = append(steps, s.Label)
		}
		got[r.Name] = strings.Join(steps, "; ")
	}
	want := map[string]string{
		"highstate web*": "test.nop common_pkg common_pkg; test.nop service nginx",
		"highstate db*":  "test.nop common_pkg common_pkg; test.nop service postgres",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("run %q = %q, want %q (runs: %v)", k, got[k], w, got)
		}
	}
	for _, d := range res.Diags {
		t.Errorf("unexpected diagnostic: %s", d.Message)
	}
	// `order top.sls`: one machine matching every target: the conflict
	res = analyzeRoot(New(), source.NewWorkspace(root), filepath.Join(root, "top.sls"))
	conflict := false
	for _, d := range res.Diags {
		if strings.HasPrefix(d.Message, "Detected conflicting IDs") {
			conflict = true
		}
	}
	if len(res.Runs) != 1 || !conflict {
		t.Errorf("order top.sls: %d runs, conflict reported: %v", len(res.Runs), conflict)
	}
}
