package puppet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestCorpus analyses real repositories, one workspace per folder of
// $ORDERING_CORPUS (e.g. /tmp/corpus/puppet), as the language server
// would, and reports how many files parse cleanly and which diagnostics
// fire. ORDERING_CORPUS_SHOW=N prints N diagnostics of each code.
func TestCorpus(t *testing.T) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		t.Skip("set ORDERING_CORPUS to a folder of repositories")
	}
	show := 0
	fmt.Sscan(os.Getenv("ORDERING_CORPUS_SHOW"), &show)
	repos, _ := os.ReadDir(root)
	var totalFiles, totalClean int
	for _, r := range repos {
		dir := filepath.Join(root, r.Name())
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dir = d
		}
		ws := source.NewWorkspace(dir)
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		sys := puppet.New()
		files := analysis.Files([]analysis.System{sys}, in)[sys]
		start := time.Now()
		res := analysis.Analyze(sys, in, files)
		took := time.Since(start)
		bad := map[string]bool{}
		counts := map[string]int{}
		shown := map[string]int{}
		for _, d := range res.Diags {
			if d.Code == "syntax" {
				bad[d.At.URI] = true
			}
			k := d.Severity.String() + " " + d.Code
			counts[k]++
			if shown[k] < show {
				shown[k]++
				t.Logf("  %s", analysis.CheckLine(ws, dir, d))
			}
		}
		var ks []string
		for k, n := range counts {
			ks = append(ks, fmt.Sprintf("%s=%d", k, n))
		}
		sort.Strings(ks)
		steps := 0
		for _, run := range res.Runs {
			steps += len(run.Steps)
		}
		totalFiles += len(files)
		totalClean += len(files) - len(bad)
		t.Logf("%-22s files %4d clean %4d runs %4d steps %6d links %6d  %v  [%s]", r.Name(), len(files), len(files)-len(bad), len(res.Runs), steps, len(res.Links), took.Round(time.Millisecond), strings.Join(ks, " "))
	}
	t.Logf("total: %d files, %d parse cleanly", totalFiles, totalClean)
}
