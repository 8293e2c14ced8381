package salt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// genHighstate writes a file root of files×per states: top.sls lists every
// SLS; each state requires the previous one of its file (chains), every
// 10th requires the hub in common.sls (fan-in), every 25th watches every
// state of the file before it with a glob (fan-out), some states declare
// names, watch_in and onchanges; files include common and, within groups
// of five, the previous file. Returns the root and the path of one file
// in the middle (the one the edit benchmark changes).
func genHighstate(tb testing.TB, files, per int) (string, string) {
	tb.Helper()
	root := tb.TempDir()
	var top strings.Builder
	top.WriteString("base:\n  '*':\n    - common\n")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("common.sls", "hub:\n  test.nop\nhub_pkg:\n  pkg.installed:\n    - name: hub\n")
	mods := []string{"test.nop", "file.managed", "cmd.run", "service.running"}
	var middle string
	for i := 0; i < files; i++ {
		var b strings.Builder
		b.WriteString("include:\n  - common\n")
		if i%5 != 0 {
			fmt.Fprintf(&b, "  - f%03d\n", i-1)
		}
		b.WriteString("{% set prefix = 's" + fmt.Sprintf("%03d", i) + "' %}\n")
		for j := 0; j < per; j++ {
			mod := mods[j%len(mods)]
			fmt.Fprintf(&b, "{{ prefix }}_%d:\n  %s:\n    - name: n%03d_%d\n", j, mod, i, j)
			var reqs []string
			if j > 0 {
				reqs = append(reqs, fmt.Sprintf("%s: s%03d_%d", strings.Split(mods[(j-1)%len(mods)], ".")[0], i, j-1))
			}
			if j%10 == 0 {
				reqs = append(reqs, "test: hub")
			}
			if j%25 == 0 && i%5 != 0 {
				reqs = append(reqs, fmt.Sprintf("id: s%03d_*", i-1))
			}
			if len(reqs) > 0 {
				b.WriteString("    - require:\n")
				for _, r := range reqs {
					fmt.Fprintf(&b, "      - %s\n", r)
				}
			}
			if j%7 == 3 {
				fmt.Fprintf(&b, "    - onchanges:\n      - pkg: hub_pkg\n")
			}
			if j%13 == 5 && j+1 < per {
				fmt.Fprintf(&b, "    - watch_in:\n      - %s: s%03d_%d\n", strings.Split(mods[(j+1)%len(mods)], ".")[0], i, j+1)
			}
		}
		name := fmt.Sprintf("f%03d.sls", i)
		write(name, b.String())
		fmt.Fprintf(&top, "    - f%03d\n", i)
		if i == files/2 {
			middle = filepath.Join(root, name)
		}
	}
	write("top.sls", top.String())
	return root, middle
}

func analyzeRoot(sys analysis.System, ws *source.Workspace, entry string) *analysis.Result {
	in := analysis.Input{Ctx: context.Background(), Workspace: ws}
	if entry != "" {
		in.Entry = source.PathToURI(entry)
	}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return analysis.Analyze(sys, in, files)
}

// BenchmarkHighstateCold: `order top.sls` on 5k states, nothing cached.
func BenchmarkHighstateCold(b *testing.B) {
	root, _ := genHighstate(b, 50, 100)
	top := filepath.Join(root, "top.sls")
	var res *analysis.Result
	c0 := cpuTime()
	for b.Loop() {
		res = analyzeRoot(New(), source.NewWorkspace(root), top)
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	reportRun(b, res)
}

// BenchmarkWorkspaceCold: the language server's first analysis of the
// same tree: one run per SLS file plus the highstate.
func BenchmarkWorkspaceCold(b *testing.B) {
	root, _ := genHighstate(b, 50, 100)
	var res *analysis.Result
	c0 := cpuTime()
	for b.Loop() {
		res = analyzeRoot(New(), source.NewWorkspace(root), "")
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	reportRun(b, res)
}

// BenchmarkWorkspaceEdit: one keystroke in one file of the tree, then the
// whole workspace analysis again with the system's caches warm.
func BenchmarkWorkspaceEdit(b *testing.B) {
	root, middle := genHighstate(b, 50, 100)
	ws := source.NewWorkspace(root)
	sys := New()
	analyzeRoot(sys, ws, "")
	orig, err := os.ReadFile(middle)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	var res *analysis.Result
	c0 := cpuTime()
	for b.Loop() {
		i++
		text := strings.Replace(string(orig), "- name: n", fmt.Sprintf("- name: e%d", i), 1)
		ws.SetOverlay(source.NewFile(source.PathToURI(middle), middle, []byte(text)))
		res = analyzeRoot(sys, ws, "")
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	reportRun(b, res)
}

// BenchmarkHighstateEdit: the same edit, `order top.sls` with warm caches.
func BenchmarkHighstateEdit(b *testing.B) {
	root, middle := genHighstate(b, 50, 100)
	ws := source.NewWorkspace(root)
	sys := New()
	top := filepath.Join(root, "top.sls")
	analyzeRoot(sys, ws, top)
	orig, _ := os.ReadFile(middle)
	i := 0
	var res *analysis.Result
	c0 := cpuTime()
	for b.Loop() {
		i++
		text := strings.Replace(string(orig), "- name: n", fmt.Sprintf("- name: e%d", i), 1)
		ws.SetOverlay(source.NewFile(source.PathToURI(middle), middle, []byte(text)))
		res = analyzeRoot(sys, ws, top)
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	reportRun(b, res)
}

// cpuTime is the process's user+system CPU time: the machine these
// benchmarks run on is shared, so wall time overstates the cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportRun(b *testing.B, res *analysis.Result) {
	steps := 0
	for _, r := range res.Runs {
		if r.Name == "highstate" {
			steps = len(r.Steps)
		}
	}
	b.ReportMetric(float64(steps), "highstate-states")
	b.ReportMetric(float64(len(res.Runs)), "runs")
	errs := 0
	for _, d := range res.Diags {
		if d.Severity == analysis.Error {
			errs++
		}
	}
	b.ReportMetric(float64(errs), "errors")
}

// TestGeneratedHighstate keeps the generator honest: the highstate holds
// every state, in an order where each state follows what it requires,
// with no errors.
func TestGeneratedHighstate(t *testing.T) {
	root, _ := genHighstate(t, 6, 40)
	res := analyzeRoot(New(), source.NewWorkspace(root), filepath.Join(root, "top.sls"))
	if len(res.Runs) != 1 || len(res.Runs[0].Steps) != 6*40+2 {
		t.Fatalf("runs %d, steps %d", len(res.Runs), len(res.Runs[0].Steps))
	}
	for _, d := range res.Diags {
		t.Errorf("diagnostic: %s", d.Message)
	}
	pos := map[*analysis.Node]int{}
	for i, s := range res.Runs[0].Steps {
		pos[s.Node] = i
	}
	for _, e := range res.Graph.Edges {
		if e.Kind.Orders() && pos[e.From] >= pos[e.To] {
			t.Errorf("%s runs after %s but %s", e.From.Ref, e.To.Ref, e.Reason)
		}
	}
}

// BenchmarkHighstateEditShape: an edit that changes the file's shape (a
// new state each time), which the patch path refuses: the run holding the
// file is computed whole.
func BenchmarkHighstateEditShape(b *testing.B) {
	root, middle := genHighstate(b, 50, 100)
	ws := source.NewWorkspace(root)
	sys := New()
	top := filepath.Join(root, "top.sls")
	analyzeRoot(sys, ws, top)
	orig, _ := os.ReadFile(middle)
	i := 0
	var res *analysis.Result
	c0 := cpuTime()
	for b.Loop() {
		i++
		text := string(orig) + fmt.Sprintf("\nnew_state_%d:\n  test.nop\n", i)
		ws.SetOverlay(source.NewFile(source.PathToURI(middle), middle, []byte(text)))
		res = analyzeRoot(sys, ws, top)
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	reportRun(b, res)
}
