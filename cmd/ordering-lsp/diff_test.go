package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func diffRepo(t *testing.T) string {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("site.pp", "notify { 'a': }\nnotify { 'b': }\nnotify { 'c': }\nnotify { 'old': }\nnotify { 'x': require => Notify['missing'] }\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	// the change: b before a, old gone, d new, a cycle c <-> d, the missing target fixed
	write("site.pp", "notify { 'b': }\nnotify { 'a': }\nnotify { 'c': before => Notify['d'] }\nnotify { 'd': before => Notify['c'] }\nnotify { 'x': }\n")
	t.Chdir(dir)
	return dir
}

func TestDiffText(t *testing.T) {
	diffRepo(t)
	var out, errb bytes.Buffer
	code := run([]string{"diff", "--base", "HEAD"}, nil, &out, &errb)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a new error); stderr %s", code, errb.String())
	}
	want := `ordering-lsp diff: HEAD -> working tree

puppet: site.pp
  moved     Notify[a]: 1st -> 2nd of 5
  moved     Notify[c]: 3rd -> 4th of 5
  appeared  Notify[d] (5th)
  vanished  Notify[old] (was 4th)

new problems
  site.pp:4:25: error: Found 1 dependency cycle: (Notify[c] => Notify[d] => Notify[c])

fixed problems
  site.pp:5:26: error: Could not find resource 'Notify[missing]' in parameter 'require'

1 run changed, 1 new problem (1 error), 1 fixed
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestDiffMarkdownAndSarif(t *testing.T) {
	diffRepo(t)
	var out bytes.Buffer
	run([]string{"diff", "--base", "HEAD", "--format", "markdown"}, nil, &out, &bytes.Buffer{})
	for _, w := range []string{"### Execution order: `HEAD` → this change", "| `Notify[a]` | moved | 1st → 2nd of 5 |",
		"| `Notify[old]` | gone | was 4th |", "#### New problems", "- **error** `site.pp:4:25`: Found 1 dependency cycle", "#### Fixed problems"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, out.String())
		}
	}
	out.Reset()
	run([]string{"diff", "--base", "HEAD", "--format", "sarif"}, nil, &out, &bytes.Buffer{})
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 {
		t.Fatalf("sarif = %v %s", err, out.String())
	}
}

func TestDiffNoChangeAndErrors(t *testing.T) {
	dir := diffRepo(t)
	git(t, dir, "commit", "-q", "-am", "the change")
	var out, errb bytes.Buffer
	if code := run([]string{"diff", "--base", "HEAD"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "0 runs changed, 0 new problems (0 errors), 0 fixed") {
		t.Errorf("against itself: exit %d\n%s%s", code, out.String(), errb.String())
	}
	errb.Reset()
	if code := run([]string{"diff", "--base", "no-such-rev"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), `unknown revision "no-such-rev"`) {
		t.Errorf("bad revision: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	t.Chdir(t.TempDir())
	if code := run([]string{"diff", "--base", "HEAD"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "is not in a git repository") {
		t.Errorf("outside git: exit %d, %s", code, errb.String())
	}
}
