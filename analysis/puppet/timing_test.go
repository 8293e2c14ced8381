package puppet_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestWorkspaceTiming reports what the language server waits for on a
// real workspace (no assertion on times): the first analysis, the same
// again with nothing changed (every run restored), and after a resource is
// added at the end of the last block of each file named.
//
//	PUPPET_TIMING_DIR=/tmp/corpus/puppet/operations-puppet \
//	PUPPET_TIMING_EDIT=modules/admin/manifests/init.pp,modules/profile/manifests/base.pp \
//	go test -run TestWorkspaceTiming -v ./analysis/puppet/
//
// The allocation of each complete analysis after an edit is logged: unlike
// its time it hardly moves with the machine's load.
// PUPPET_TIMING_ALLOCPROF=prefix writes heap profiles before and after
// each of those analyses (prefix-before.prof, prefix-after.prof; compare
// with `go tool pprof -sample_index=alloc_space -base before after`).
// PUPPET_TIMING_PROF=file writes a CPU profile of the first analysis,
// PUPPET_TIMING_SAMEPROF=file one of the second (nothing changed),
// PUPPET_TIMING_EDITPROF=file one of the complete analysis after an edit,
// PUPPET_TIMING_RETITLEPROF=file one after its probe's title is typed over,
// PUPPET_TIMING_FOCUSPROF=file one of the focused analysis before it;
// PUPPET_TIMING_DUMP=dir writes the strict dump (dump_test.go) of the
// result after each edit, to diff a speed change's incremental path with
// the code before it; PUPPET_TIMING_FRESH=1 holds that result to a fresh
// analysis's there and then. PUPPET_TIMING_PROBE is the resource added
// (a notify unless set), and then taken out again; PUPPET_TIMING_AFTER
// puts it on the line after the first that holds this text instead of
// at the end of the file's last block; PUPPET_TIMING_COMMENT=1 also puts
// a comment line at the top of the file (two edits: the runs are moved,
// then patched). PUPPET_TIMING_BEFORE (\n: a line break) is put at the
// probe's place and analysed first: the state the probe is added to.
// PUPPET_TIMING_FROM and PUPPET_TIMING_TO (\n: a line break) replace the
// first text FROM of the file with TO instead of adding the probe.
func TestWorkspaceTiming(t *testing.T) {
	dir := os.Getenv("PUPPET_TIMING_DIR")
	if dir == "" {
		t.Skip("set PUPPET_TIMING_DIR to a workspace")
	}
	dir, _ = filepath.EvalSymlinks(dir)
	ws := source.NewWorkspace(dir)
	sys := puppet.New()
	// dumping: poison the memory merged runs give back (see TestDumpCorpus)
	sys.(*puppet.System).PoisonFreed = os.Getenv("PUPPET_TIMING_DUMP") != ""
	analyze := func(focus ...string) (*analysis.Result, time.Duration, time.Duration) {
		t0, c0 := time.Now(), cpuTime()
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}, Focus: focus}
		fs := analysis.Files([]analysis.System{sys}, in)[sys]
		res := analysis.Analyze(sys, in, fs)
		return res, time.Since(t0), cpuTime() - c0
	}
	if f := os.Getenv("PUPPET_TIMING_PROF"); f != "" {
		pf, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		pprof.StartCPUProfile(pf)
	}
	res, wall, cpu := analyze()
	if os.Getenv("PUPPET_TIMING_PROF") != "" {
		pprof.StopCPUProfile()
	}
	if d := os.Getenv("PUPPET_TIMING_DUMP"); d != "" { // (what an edit undone gives again)
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, "first.txt"), []byte(dump(res)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("first analysis: %v wall, %v CPU, %d runs, %d nodes", wall.Round(time.Millisecond), cpu.Round(time.Millisecond), len(res.Runs), len(res.Graph.Nodes))
	if f := os.Getenv("PUPPET_TIMING_SAMEPROF"); f != "" { // (a CPU profile of the analysis that restores every run)
		if pf, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(pf)
			defer pf.Close()
		}
	}
	_, wall, cpu = analyze()
	if os.Getenv("PUPPET_TIMING_SAMEPROF") != "" {
		pprof.StopCPUProfile()
	}
	t.Logf("nothing changed: %v wall, %v CPU, %d runs restored", wall.Round(time.Millisecond), cpu.Round(time.Millisecond), sys.(*puppet.System).Restored)
	for _, rel := range strings.Split(os.Getenv("PUPPET_TIMING_EDIT"), ",") {
		if rel == "" {
			continue
		}
		p := filepath.Join(dir, rel)
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.LastIndexByte(text, '}')
		if i < 0 {
			i = len(text)
		}
		if after := os.Getenv("PUPPET_TIMING_AFTER"); after != "" { // the line after the first holding it
			if j := bytes.Index(text, []byte(after)); j >= 0 {
				j += len(after)
				i = j + bytes.IndexByte(text[j:], '\n') + 1
			}
		}
		probe := "  notify { 'timing-probe': }\n"
		if s := os.Getenv("PUPPET_TIMING_PROBE"); s != "" {
			probe = "  " + s + "\n"
		}
		if b := os.Getenv("PUPPET_TIMING_BEFORE"); b != "" { // lines analysed first, the probe after them
			b = strings.ReplaceAll(b, `\n`, "\n") + "\n"
			text = append(append(append([]byte(nil), text[:i]...), b...), text[i:]...)
			i += len(b)
			ws.SetOverlay(source.NewFile(source.PathToURI(p), p, text))
			_, bwall, _ := analyze()
			t.Logf("edit %s: the lines before the probe analysed in %v", rel, bwall.Round(time.Millisecond))
		}
		edited := append(append(append([]byte(nil), text[:i]...), probe...), text[i:]...)
		if from := os.Getenv("PUPPET_TIMING_FROM"); from != "" { // an edit of the text instead of the probe
			to := strings.ReplaceAll(os.Getenv("PUPPET_TIMING_TO"), `\n`, "\n")
			edited = bytes.Replace(text, []byte(strings.ReplaceAll(from, `\n`, "\n")), []byte(to), 1)
		}
		if os.Getenv("PUPPET_TIMING_COMMENT") != "" { // a comment line at the top too (as the server follows it first)
			edited = append([]byte("# timing\n"), edited...)
		}
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, edited))
		// As the server does: the edited file's runs first, then all.
		if f := os.Getenv("PUPPET_TIMING_FOCUSPROF"); f != "" { // (a CPU profile of the focused analysis)
			if pf, err := os.Create(f); err == nil {
				pprof.StartCPUProfile(pf)
				defer pf.Close()
			}
		}
		fres, fwall, fcpu := analyze(source.PathToURI(p))
		if os.Getenv("PUPPET_TIMING_FOCUSPROF") != "" {
			pprof.StopCPUProfile()
		}
		nd := 0
		for _, d := range fres.Diags {
			if d.At.URI == source.PathToURI(p) {
				nd++
			}
		}
		fps := sys.(*puppet.System)
		t.Logf("edit %s, focused: %v wall, %v CPU, %d runs, %d diagnostics in the file; %d patched, not patched by test %v", rel, fwall.Round(time.Millisecond), fcpu.Round(time.Millisecond), len(fres.Runs), nd, fps.Patched, fps.PatchRefused)
		allocProf(t, "before")
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if f := os.Getenv("PUPPET_TIMING_EDITPROF"); f != "" {
			pf, err := os.Create(f)
			if err != nil {
				t.Fatal(err)
			}
			pprof.StartCPUProfile(pf)
		}
		res, wall, cpu = analyze()
		if os.Getenv("PUPPET_TIMING_EDITPROF") != "" {
			pprof.StopCPUProfile()
		}
		var m1 runtime.MemStats
		runtime.ReadMemStats(&m1)
		allocProf(t, "after")
		ps := sys.(*puppet.System)
		t.Logf("edit %s: %v wall, %v CPU, %d MB allocated in %dk objects, %d of %d runs restored, define bodies %d evaluated %d replayed, class bodies %d evaluated %d replayed", rel, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), (m1.TotalAlloc-m0.TotalAlloc)>>20, (m1.Mallocs-m0.Mallocs)/1000, ps.Restored, len(res.Runs), ps.DefineEvals, ps.DefineReplays, ps.ClassEvals, ps.ClassReplays)
		t.Logf("patched %d runs; not patched, by test: %v", ps.Patched, ps.PatchRefused)
		if d := os.Getenv("PUPPET_TIMING_DUMP"); d != "" {
			os.MkdirAll(d, 0o755)
			if err := os.WriteFile(filepath.Join(d, strings.ReplaceAll(rel, "/", "_")+".txt"), []byte(dump(res)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if os.Getenv("PUPPET_TIMING_FRESH") != "" { // held to a fresh analysis's
			got := dump(res)
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
			fresh := puppet.New()
			want := dump(analysis.Analyze(fresh, in, analysis.Files([]analysis.System{fresh}, in)[fresh]))
			if got != want {
				t.Errorf("edit %s: the result differs from a fresh analysis's\n%s", rel, lineDiff(want, got))
			}
		}
		// Its title typed over (a replacement: patched too).
		retitled := bytes.Replace(edited, []byte("timing-probe"), []byte("timing-probe-2"), 1)
		ws.SetOverlay(source.NewFile(source.PathToURI(p), p, retitled))
		runtime.ReadMemStats(&m0)
		if f := os.Getenv("PUPPET_TIMING_RETITLEPROF"); f != "" { // (a CPU profile of this analysis)
			if pf, err := os.Create(f); err == nil {
				pprof.StartCPUProfile(pf)
				defer pf.Close()
			}
		}
		res, wall, cpu = analyze()
		if os.Getenv("PUPPET_TIMING_RETITLEPROF") != "" {
			pprof.StopCPUProfile()
		}
		runtime.ReadMemStats(&m1)
		t.Logf("edit %s retitled: %v wall, %v CPU, %d MB allocated, %d patched; not patched, by test: %v", rel, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), (m1.TotalAlloc-m0.TotalAlloc)>>20, ps.Patched, ps.PatchRefused)
		if os.Getenv("PUPPET_TIMING_FRESH") != "" {
			got := dump(res)
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
			fresh := puppet.New()
			if want := dump(analysis.Analyze(fresh, in, analysis.Files([]analysis.System{fresh}, in)[fresh])); got != want {
				t.Errorf("edit %s retitled: the result differs from a fresh analysis's\n%s", rel, lineDiff(want, got))
			}
		}
		// The probe taken out again (a removal: patched too).
		ws.DropOverlay(source.PathToURI(p))
		runtime.ReadMemStats(&m0)
		res, wall, cpu = analyze()
		runtime.ReadMemStats(&m1)
		t.Logf("edit %s undone: %v wall, %v CPU, %d MB allocated, %d of %d runs restored, %d patched; not patched, by test: %v", rel, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), (m1.TotalAlloc-m0.TotalAlloc)>>20, ps.Restored, len(res.Runs), ps.Patched, ps.PatchRefused)
		if d := os.Getenv("PUPPET_TIMING_DUMP"); d != "" {
			if err := os.WriteFile(filepath.Join(d, strings.ReplaceAll(rel, "/", "_")+".undone.txt"), []byte(dump(res)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// PUPPET_TIMING_MEMPROF=file: what the analysis keeps live between
	// edits (the last result and the run cache), as a heap profile.
	if f := os.Getenv("PUPPET_TIMING_MEMPROF"); f != "" {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("live heap after the edits: %d MB (result of %d runs kept)", ms.HeapAlloc>>20, len(res.Runs))
		pf, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		pprof.WriteHeapProfile(pf)
		pf.Close()
	}
	runtime.KeepAlive(sys) // its run cache is part of what the server keeps
}

// allocProf writes a heap profile named by PUPPET_TIMING_ALLOCPROF and
// which (see TestWorkspaceTiming).
func allocProf(t *testing.T, which string) {
	prefix := os.Getenv("PUPPET_TIMING_ALLOCPROF")
	if prefix == "" {
		return
	}
	pf, err := os.Create(prefix + "-" + which + ".prof")
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	runtime.GC() // (the profile holds what was allocated up to the last collection)
	if err := pprof.Lookup("allocs").WriteTo(pf, 0); err != nil {
		t.Fatal(err)
	}
}
