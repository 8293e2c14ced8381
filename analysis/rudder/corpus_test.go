package rudder

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestCorpus measures the importers and the analysis on real exports:
// RUDDER_CORPUS=dir1,dir2 go test ./analysis/rudder -run Corpus -v
// Every file the system owns is imported (counts of files, errors, rules,
// directives, techniques); then each folder is analysed as one workspace
// and diagnostics are counted by code. Nothing is asserted: it is a
// measurement, the figures go to the README.
func TestCorpus(t *testing.T) {
	dirs := os.Getenv("RUDDER_CORPUS")
	if dirs == "" {
		t.Skip("set RUDDER_CORPUS to folders of Rudder exports")
	}
	sys := New()
	for _, dir := range splitList(dirs) {
		owned, withErr, rules, directives, techniques := 0, 0, 0, 0, 0
		formats := map[string]int{}
		var errs []string
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			text, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			head := text[:min(len(text), 4096)]
			if !sys.Owns(p, func() []byte { return head }) {
				return nil
			}
			owned++
			f := prs.Import(p, text, "")
			formats[f.Format]++
			rules += len(f.Rules)
			directives += len(f.Directives)
			techniques += len(f.Techniques)
			if len(f.Errors) > 0 {
				withErr++
				for _, e := range f.Errors {
					errs = append(errs, strings.TrimPrefix(p, dir)+": "+e.Code+": "+e.Msg)
				}
			}
			return nil
		})
		t.Logf("%s: %d files owned %v, %d with import errors; %d rules, %d directives, %d techniques", dir, owned, formats, withErr, rules, directives, techniques)
		for i, e := range errs {
			if i == 20 {
				t.Logf("  ... %d more", len(errs)-i)
				break
			}
			t.Logf("  %s", e)
		}
		if os.Getenv("RUDDER_CORPUS_PERFILE") != "" {
			perFile(t, dir)
		}
		ws := source.NewWorkspace(dir)
		in := analysis.Input{Ctx: context.Background(), Workspace: ws}
		for _, res := range analysis.AnalyzeAll([]analysis.System{New()}, in) {
			codes := map[string]int{}
			for _, d := range res.Diags {
				codes[d.Severity.String()+" "+d.Code]++
			}
			var keys []string
			for k := range codes {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, k+"="+itoa(codes[k]))
			}
			steps := 0
			if len(res.Runs) > 0 {
				steps = len(res.Runs[0].Steps)
			}
			t.Logf("  analysis: %d files, %d nodes, %d policies, diagnostics: %s", len(res.Files), len(res.Graph.Nodes), steps, strings.Join(parts, ", "))
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// perFile analyses every owned file alone (each API response is a
// workspace of its own) and counts the diagnostics.
func perFile(t *testing.T, dir string) {
	codes := map[string]int{}
	files, clean, policies := 0, 0, 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		ws := source.NewWorkspace()
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: []string{p}}
		for _, res := range analysis.AnalyzeAll([]analysis.System{New()}, in) {
			files++
			if len(res.Diags) == 0 {
				clean++
			}
			if len(res.Runs) > 0 {
				policies += len(res.Runs[0].Steps)
			}
			for _, d := range res.Diags {
				codes[d.Severity.String()+" "+d.Code]++
				if os.Getenv("RUDDER_CORPUS_PERFILE") == "v" {
					t.Logf("    %s: %s", strings.TrimPrefix(p, dir), d.Message)
				}
			}
		}
		return nil
	})
	t.Logf("  per file: %d files analysed alone, %d without any diagnostic, %d policies in all; diagnostics %v", files, clean, policies, codes)
}
