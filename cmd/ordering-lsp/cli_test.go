package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestCLI runs the command-line fixtures in testdata/cli. A fixture's
// comment is the command (`ordering-lsp why site.pp A B`, words split on
// spaces, 'single quotes' group) and optionally `exit N`; its files are
// the workspace, except `stdout` and `stderr`, which are the expected
// output (stderr is checked only when present). The command runs in the
// workspace folder.
func TestCLI(t *testing.T) {
	files, _ := filepath.Glob("testdata/cli/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, fx := range files {
		t.Run(strings.TrimSuffix(filepath.Base(fx), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			wantExit := 0
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				switch {
				case strings.HasPrefix(line, "ordering-lsp "):
					args = splitWords(strings.TrimPrefix(line, "ordering-lsp "))
				case strings.HasPrefix(line, "exit "):
					wantExit, _ = strconv.Atoi(strings.TrimPrefix(line, "exit "))
				}
			}
			if args == nil {
				t.Fatal("no `ordering-lsp ...` line in the comment")
			}
			dir := t.TempDir()
			var wantOut, wantErr *string
			for _, f := range ar.Files {
				data := string(f.Data)
				switch f.Name {
				case "stdout":
					wantOut = &data
					continue
				case "stderr":
					wantErr = &data
					continue
				}
				p := filepath.Join(dir, filepath.FromSlash(f.Name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			var out, errb bytes.Buffer
			code := run(args, strings.NewReader(""), &out, &errb)
			if code != wantExit {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, wantExit, errb.String())
			}
			if wantOut != nil && out.String() != *wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), *wantOut)
			}
			if wantErr != nil && errb.String() != *wantErr {
				t.Errorf("stderr:\n%s\nwant:\n%s", errb.String(), *wantErr)
			}
		})
	}
}

// splitWords splits on spaces; 'single quotes' keep spaces.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, any := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, any = !quoted, true
		case r == ' ' && !quoted:
			if any {
				out = append(out, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}
