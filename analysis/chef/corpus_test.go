package chef_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestCorpus runs the analysis over real repositories (the chef part of
// shared/corpus/SOURCES.md, fetched and unpacked one folder per repository):
//
//	CHEF_CORPUS=/tmp/corpus/chef go test ./analysis/chef -run TestCorpus -v
//
// It counts the Policyfiles and locks that read without a syntax problem,
// lists every error and warning, and checks, for each lock that includes
// other policies, that the merged run list equals the lock's stored one:
// with its Policyfile beside it, the Policyfile's merged run; without, the
// stored list must be the included lists merged in front of itself.
func TestCorpus(t *testing.T) {
	root := os.Getenv("CHEF_CORPUS")
	if root == "" {
		t.Skip("set CHEF_CORPUS to a folder of unpacked chef repositories")
	}
	repos, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var rbs, rbClean, locks, lockClean, including, agree, checked int
	diagsBySev := map[analysis.Severity]int{}
	for _, r := range repos {
		if !r.IsDir() {
			continue
		}
		dir := filepath.Join(root, r.Name())
		ws := source.NewWorkspace(dir)
		in := analysis.Input{Ctx: context.Background(), Workspace: ws}
		sys := chef.New()
		files := analysis.Files([]analysis.System{sys}, in)[sys]
		res := analysis.Analyze(sys, in, files)
		bad := map[string]bool{}
		for _, d := range res.Diags {
			diagsBySev[d.Severity]++
			if d.Severity <= analysis.Warning {
				t.Logf("%s: %s", r.Name(), analysis.CheckLine(ws, dir, d))
			}
			if d.Code == "syntax" || d.Code == "unsupported" || d.Code == "internal-error" {
				bad[d.At.URI] = true
			}
		}
		runs := map[string][]string{}
		for _, run := range res.Runs {
			if run.Entry == "" {
				continue
			}
			var ls []string
			for _, s := range run.Steps {
				ls = append(ls, s.Label)
			}
			runs[run.Entry] = ls
		}
		for _, f := range files {
			if strings.HasSuffix(f.Path, ".lock.json") {
				locks++
				if !bad[f.URI] {
					lockClean++
				}
				l, err := pchef.ParseLock(f.Text)
				if err != nil || len(l.Included) == 0 {
					continue
				}
				including++
				stored := runs[f.URI]
				rb := strings.TrimSuffix(f.Path, ".lock.json") + ".rb"
				if merged, ok := runs[source.PathToURI(rb)]; ok {
					checked++
					if strings.Join(merged, " ") == strings.Join(stored, " ") {
						agree++
					} else {
						t.Errorf("%s: merged %v, lock %v", f.Path, merged, stored)
					}
					continue
				}
				// no Policyfile: every include must resolve and no stale-lock
				// diagnostic may be raised on the lock
				resolved := 0
				for _, ln := range res.Links {
					if ln.At.URI == f.URI && len(ln.Files) > 0 {
						resolved++
					}
				}
				stale := false
				for _, d := range res.Diags {
					if d.At.URI == f.URI && d.Code == "stale-lock" {
						stale = true
					}
				}
				checked++
				if resolved == len(l.Included) && !stale {
					agree++
				} else {
					t.Logf("%s: %d of %d includes resolved, stale=%v", f.Path, resolved, len(l.Included), stale)
				}
			} else {
				rbs++
				if !bad[f.URI] {
					rbClean++
				}
			}
		}
	}
	sev := []string{}
	for s, n := range diagsBySev {
		sev = append(sev, s.String()+"="+itoa(n))
	}
	sort.Strings(sev)
	t.Logf("Policyfiles: %d, read cleanly: %d", rbs, rbClean)
	t.Logf("lock files: %d, read cleanly: %d", locks, lockClean)
	t.Logf("locks including other policies: %d; merged run list checked: %d; equal to the stored run_list: %d", including, checked, agree)
	t.Logf("diagnostics: %s", strings.Join(sev, " "))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
