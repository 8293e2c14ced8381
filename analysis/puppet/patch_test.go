package puppet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// serverAnalyze analyses the files of a txtar archive as the language
// server does (no entry file) with sys, in a new folder.
func serverAnalyze(t *testing.T, sys *System, ar *txtar.Archive) (*source.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		p := filepath.Join(dir, f.Name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := source.NewWorkspace(dir)
	analyzeWS(sys, ws)
	return ws, dir
}

func analyzeWS(sys *System, ws *source.Workspace) *analysis.Result {
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	fs := analysis.Files([]analysis.System{sys}, in)[sys]
	return analysis.Analyze(sys, in, fs)
}

// corpusArchives: every fixture and oracle case of the package.
func corpusArchives(t *testing.T) map[string]*txtar.Archive {
	out := map[string]*txtar.Archive{}
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	cases, _ := filepath.Glob(filepath.Join("testdata", "oracle", "*.pp"))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = ar
	}
	for _, p := range cases {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = &txtar.Archive{Files: []txtar.File{{Name: "manifests/site.pp", Data: b}}}
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

// TestSnapOrderIsTheRunsOrder: a run's order computed again from its
// snapshot (orderOf) is the order buildRun computed, for every run of
// every fixture and oracle case analysed as the server does.
func TestSnapOrderIsTheRunsOrder(t *testing.T) {
	runs := 0
	for p, ar := range corpusArchives(t) {
		sys := New().(*System)
		serverAnalyze(t, sys, ar)
		for name, s := range sys.cache {
			if s.order == nil {
				continue
			}
			runs++
			got, sameSeq := orderAgain(s)
			if !sameSeq {
				t.Errorf("%s, run %s: the sequence kept is not the one orderOf takes", p, name)
			}
			if len(got) != len(s.run.Steps) {
				t.Errorf("%s, run %s: %d steps computed again, %d built", p, name, len(got), len(s.run.Steps))
				continue
			}
			for i := range got {
				if got[i] != s.run.Steps[i] {
					t.Errorf("%s, run %s: step %d is %s computed again, %s built", p, name, i, got[i].Label, s.run.Steps[i].Label)
					break
				}
			}
		}
	}
	// PUPPET_SNAPORDER_DIR=/work/corpus/puppet/operations-puppet: a real
	// workspace too.
	if dir := os.Getenv("PUPPET_SNAPORDER_DIR"); dir != "" {
		sys := New().(*System)
		analyzeWS(sys, source.NewWorkspace(dir))
		for name, s := range sys.cache {
			if s.order == nil {
				continue
			}
			runs++
			got, sameSeq := orderAgain(s)
			if !sameSeq {
				t.Errorf("%s, run %s: the sequence kept is not the one orderOf takes", dir, name)
			}
			same := len(got) == len(s.run.Steps)
			for i := 0; same && i < len(got); i++ {
				same = got[i] == s.run.Steps[i]
			}
			if !same {
				t.Errorf("%s, run %s: computed again, the order differs (%d, %d steps)", dir, name, len(got), len(s.run.Steps))
				if os.Getenv("PUPPET_SNAPORDER_SHOW") == name {
					for i := 0; i < len(got) || i < len(s.run.Steps); i++ {
						a, b := "-", "-"
						if i < len(got) {
							a = got[i].Label
						}
						if i < len(s.run.Steps) {
							b = s.run.Steps[i].Label
						}
						mark := " "
						if a != b {
							mark = "*"
						}
						t.Logf("%s %d %s | %s", mark, i, a, b)
					}
				}
			}
		}
	}
	if runs == 0 {
		t.Fatal("no run kept its order")
	}
	t.Logf("%d runs", runs)
}

// orderAgain is the run's order computed again from its snapshot (on a
// copy of its snapOrder, which orderOf writes its sequence into), and
// whether that sequence is the one the snapshot kept.
func orderAgain(s *runSnap) ([]analysis.Step, bool) {
	c, o := *s, *s.order
	c.order = &o
	got, _ := orderOf(&c, s.edges, nil, -1)
	return got, bytes.Equal(s.order.seq, o.seq)
}
