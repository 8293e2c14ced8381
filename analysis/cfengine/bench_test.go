package cfengine

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

// writePolicy generates a masterfiles-sized policy: an entry with inputs
// and n library files of 20 bundles each.
func writePolicy(b *testing.B, dir string, n int) string {
	var inputs, seq []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("lib%d.cf", i)
		inputs = append(inputs, fmt.Sprintf("%q", name))
		var sb strings.Builder
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&sb, "bundle agent b%d_%d\n{\n  vars:\n    \"v\" string => \"x\";\n  files:\n    \"/tmp/%d/%d\" perms => p%d, handle => \"h%d_%d\";\n  commands:\n    \"/bin/echo $(v)\" depends_on => { \"h%d_%d\" };\n  reports:\n    \"done\";\n}\n", i, j, i, j, i, i, j, i, j)
			seq = append(seq, fmt.Sprintf("\"b%d_%d\"", i, j))
		}
		fmt.Fprintf(&sb, "body perms p%d\n{\n  mode => \"644\";\n}\n", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	entry := filepath.Join(dir, "promises.cf")
	text := fmt.Sprintf("body common control\n{\n  bundlesequence => { %s };\n  inputs => { %s };\n}\n", strings.Join(seq, ", "), strings.Join(inputs, ", "))
	if err := os.WriteFile(entry, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return entry
}

func benchAnalyze(b *testing.B, edit bool) {
	dir := b.TempDir()
	entry := writePolicy(b, dir, 150)
	ws := source.NewWorkspace(dir)
	sys := New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	// as the server: the workspace is walked once, files are (re)loaded
	// for every analysis
	systems := []analysis.System{sys}
	paths := analysis.Discover(systems, in)
	files := analysis.Load(systems, in, paths)[sys]
	analysis.Analyze(sys, in, files)
	lib := filepath.Join(dir, "lib7.cf")
	orig := ws.Lookup(lib).Text
	_ = entry
	i := 0
	c0 := cpuTime()
	for b.Loop() {
		if !edit {
			sys = New() // cold: empty chunk cache
		} else {
			text := append([]byte(nil), orig...)
			if i%2 == 0 {
				text = []byte(strings.Replace(string(orig), "\"done\";", "\"done!\";", 1))
			}
			ws.SetOverlay(source.NewFile(source.PathToURI(lib), lib, text))
			files = analysis.Load(systems, in, paths)[sys]
		}
		analysis.Analyze(sys, in, files)
		i++
	}
	reportCPU(b, c0)
}

// BenchmarkAnalyzeCold: 151 files, 3000 bundles (~45,000 lines), empty cache.
func BenchmarkAnalyzeCold(b *testing.B) { benchAnalyze(b, false) }

// BenchmarkAnalyzeOneEdit: the same workspace after one keystroke in one file.
func BenchmarkAnalyzeOneEdit(b *testing.B) { benchAnalyze(b, true) }

// benchTree analyses a real policy tree (a checkout of cfengine/masterfiles
// in $ORDERING_MASTERFILES) as the language server does: every owned file,
// no entry. With edit, each iteration changes one character of
// lib/files.cf (alternately) and re-analyses with the warm system.
func benchTree(b *testing.B, edit bool) {
	dir := os.Getenv("ORDERING_MASTERFILES")
	if dir == "" {
		b.Skip("ORDERING_MASTERFILES not set (a checkout of cfengine/masterfiles)")
	}
	ws := source.NewWorkspace(dir)
	sys := New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
	systems := []analysis.System{sys}
	paths := analysis.Discover(systems, in)
	files := analysis.Load(systems, in, paths)[sys]
	analysis.Analyze(sys, in, files)
	lib := filepath.Join(dir, "lib", "files.cf")
	f := ws.Lookup(lib)
	if f == nil {
		b.Fatal("no lib/files.cf")
	}
	orig := f.Text
	i := 0
	c0 := cpuTime()
	for b.Loop() {
		if !edit {
			sys = New()
		} else {
			text := append([]byte(nil), orig...)
			if i%2 == 0 {
				text = []byte(strings.Replace(string(orig), "bundle edit_line", "bundle  edit_line", 1))
			}
			ws.SetOverlay(source.NewFile(source.PathToURI(lib), lib, text))
			files = analysis.Load(systems, in, paths)[sys]
		}
		analysis.Analyze(sys, in, files)
		i++
	}
	reportCPU(b, c0)
}

// BenchmarkMasterfilesCold: the real masterfiles tree, empty caches.
func BenchmarkMasterfilesCold(b *testing.B) { benchTree(b, false) }

// BenchmarkMasterfilesOneEdit: masterfiles after one keystroke in lib/files.cf.
func BenchmarkMasterfilesOneEdit(b *testing.B) { benchTree(b, true) }

// cpuTime is the process's user+system CPU time: the machine these
// benchmarks run on is shared, so wall time overstates the cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
