package analysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Input says what to analyse: the workspace, the paths to start from
// (folders are walked), and optionally the entry file of `order`.
type Input struct {
	Ctx       context.Context
	Workspace *source.Workspace
	// Paths are extra files or folders to include besides the workspace
	// roots and open documents (the CLI's arguments).
	Paths    []string
	Entry    string // URI
	Settings Settings
	Focus    []string // see Request.Focus
	Once     bool     // see Request.Once
	// DiagnosticsOnly, OrderOnly: see Request.
	DiagnosticsOnly bool
	OrderOnly       bool
	Progress        func(done, total int) // see Request.Progress
}

// Discover lists, for each system, the local paths it owns among the
// workspace roots, the Input's Paths and the open documents. It reads only
// the first bytes of candidate files; the server caches its answer and
// re-runs it when files are created or deleted.
//
// The walk lists the paths first and asks the systems about them on every
// CPU: a command line's analysis waits for it with the other cores idle
// (operations-puppet: 10,809 files, heads of its Ruby and JSON files read,
// 135-255 ms on one core before anything else starts). Each path's owner
// depends on the path alone, so the lists are those a single goroutine
// makes, in the walk's order.
func Discover(systems []System, in Input) map[System][]string {
	ws := in.Workspace
	headOf := func(p string) func() []byte {
		return func() []byte {
			if f := ws.OverlayAt(p); f != nil {
				return firstBytes(f.Text)
			}
			fh, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer fh.Close()
			buf := make([]byte, 4096)
			n, _ := fh.Read(buf)
			return buf[:n]
		}
	}
	var paths []string
	ws.Walk(func(p string) bool {
		paths = append(paths, p)
		return true
	}, in.Paths...)
	owners := make([]System, len(paths))
	eachParallel(len(paths), func(i int) {
		h := headOf(paths[i])
		for _, s := range systems {
			if s.Owns(paths[i], h) {
				owners[i] = s
				return
			}
		}
	})
	out := map[System][]string{}
	for i, p := range paths {
		if s := owners[i]; s != nil {
			out[s] = append(out[s], p)
		}
	}
	return out
}

// Load reads the discovered paths (open documents win over the disk) and
// adds open documents that have no local path (untitled:) to the system
// that owns their name. Files are read on every CPU (as Discover asks).
func Load(systems []System, in Input, paths map[System][]string) map[System][]*source.File {
	out := map[System][]*source.File{}
	ws := in.Workspace
	type job struct {
		s System
		p string
	}
	var jobs []job
	for s, ps := range paths {
		for _, p := range ps {
			jobs = append(jobs, job{s, p})
		}
	}
	got := make([]*source.File, len(jobs))
	eachParallel(len(jobs), func(i int) { got[i] = ws.Lookup(jobs[i].p) })
	for i, j := range jobs {
		if f := got[i]; f != nil {
			out[j.s] = append(out[j.s], f)
		}
	}
	for _, f := range ws.Overlays() {
		if f.Path != "" {
			continue
		}
		if s := ownerOfBuffer(systems, f); s != nil {
			out[s] = append(out[s], f)
		}
	}
	return out
}

// eachParallel calls f(0..n-1) on GOMAXPROCS goroutines (on the caller's
// alone for a few calls).
func eachParallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/64)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// Files is Discover followed by Load.
func Files(systems []System, in Input) map[System][]*source.File {
	return Load(systems, in, Discover(systems, in))
}

func firstBytes(b []byte) []byte {
	if len(b) > 4096 {
		return b[:4096]
	}
	return b
}

// AnalyzeAll runs every system that owns at least one file. A system that
// panics yields a Result with one internal-error diagnostic instead of
// taking the server down.
func AnalyzeAll(systems []System, in Input) []*Result {
	return AnalyzeFiles(systems, in, Files(systems, in))
}

// AnalyzeFiles runs every system on the files already loaded for it.
func AnalyzeFiles(systems []System, in Input, files map[System][]*source.File) []*Result {
	var results []*Result
	for _, s := range systems {
		fs := files[s]
		if len(fs) == 0 {
			continue
		}
		results = append(results, Analyze(s, in, fs))
	}
	return results
}

// Analyze runs one system on the given files, recovering from panics.
func Analyze(s System, in Input, files []*source.File) (res *Result) {
	ctx := in.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	req := &Request{Ctx: ctx, Files: files, Entry: in.Entry, Workspace: in.Workspace, Settings: in.Settings, Focus: in.Focus, Once: in.Once, DiagnosticsOnly: in.DiagnosticsOnly, OrderOnly: in.OrderOnly, Progress: in.Progress}
	defer func() {
		if r := recover(); r != nil {
			at := source.Span{}
			if len(files) > 0 {
				at.URI = files[0].URI
			}
			if in.Entry != "" {
				at.URI = in.Entry
			}
			res = &Result{System: s.Name()}
			for _, f := range files {
				res.Files = append(res.Files, f.URI)
			}
			res.Diags = []Diagnostic{{
				At: at, Severity: Error, Code: "internal-error", Source: s.Name(),
				Message: fmt.Sprintf("ordering-lsp: internal error in the %s analysis: %v (please report this with the file)", s.Name(), r),
			}}
			if os.Getenv("ORDERING_LSP_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "panic in %s: %v\n%s", s.Name(), r, debug.Stack())
			}
		}
	}()
	res = s.Analyze(req)
	if res == nil {
		res = &Result{}
	}
	res.System = s.Name()
	for i := range res.Diags {
		if res.Diags[i].Source == "" {
			res.Diags[i].Source = s.Name()
		}
	}
	if res.Files == nil {
		for _, f := range files {
			res.Files = append(res.Files, f.URI)
		}
	}
	return res
}

// SortDiagnostics orders diagnostics by file, then position, then message,
// so output is stable from run to run.
func SortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].At, ds[j].At
		if a.URI != b.URI {
			return a.URI < b.URI
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return ds[i].Message < ds[j].Message
	})
}

// RepoRoots are the folders whose repository configuration counts for the
// files: the workspace folders, or (the command line, which has none) the
// nearest folder at most 8 above the files' common folder that holds one
// of the markers (.git, a Puppetfile...), else that common folder.
func RepoRoots(ws *source.Workspace, files []*source.File, markers ...string) []string {
	if roots := ws.Roots(); len(roots) > 0 {
		return roots
	}
	common := ""
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		d := filepath.Dir(f.Path)
		if common == "" {
			common = d
			continue
		}
		for common != d && !strings.HasPrefix(d, common+string(filepath.Separator)) {
			p := filepath.Dir(common)
			if p == common {
				break
			}
			common = p
		}
	}
	if common == "" {
		return nil
	}
	for d, i := common, 0; i < 8; i++ {
		for _, m := range markers {
			if ws.Exists(filepath.Join(d, m)) {
				return []string{d}
			}
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	return []string{common}
}

// Rel returns path relative to base when it is inside base.
func Rel(base, path string) string {
	if r, err := filepath.Rel(base, path); err == nil && !filepath.IsAbs(r) && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return path
}

// ownerOfBuffer finds the system of an editor buffer without a local path:
// by its languageId first, then by its URI as a name.
func ownerOfBuffer(systems []System, f *source.File) System {
	for _, s := range systems {
		if lo, ok := s.(LanguageOwner); ok && f.Language != "" && lo.OwnsLanguage(f.Language) {
			return s
		}
	}
	for _, s := range systems {
		if s.Owns(f.URI, func() []byte { return firstBytes(f.Text) }) {
			return s
		}
	}
	return nil
}
