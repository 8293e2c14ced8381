// Package analysistest runs a System on txtar fixtures and compares its
// order and diagnostics with the expectations written beside the input.
//
// A fixture is one txtar archive: the input files, then sections named
// `want/...`:
//
//	entry: site.pp                  (comment lines: the entry file, default
//	setting: puppet.ordering=random  the first input file; settings;
//	link: promises.cf -> common/promises.cf  a symbolic link, as in a checkout)
//	-- site.pp --
//	notify { 'a': }
//	-- want/order --
//	Notify[a]
//	-- want/diagnostics --
//	site.pp:1:1: error: ...
//	-- want/refused --
//	true
//
// want/order is the Labels of the Run whose Entry is the entry file (or
// the first Run; `entry: -` analyses the workspace with no entry file, as
// the language server does); want/diagnostics lists every diagnostic in `check`
// format, sorted. `$ROOT` in the inputs and in want/diagnostics stands for
// the folder the inputs are written to. Sections that are absent are not checked. Run the tests
// with -update to rewrite the want sections from what the system says.
package analysistest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite want/ sections of txtar fixtures")

// Outcome is what a system said about a fixture.
type Outcome struct {
	Result  *analysis.Result
	Run     *analysis.Run
	Order   []string
	Diags   []string
	Refused bool
	Dir     string
	WS      *source.Workspace
	Input   analysis.Input // what the analysis was asked
}

// WriteInputs writes the archive's files other than want/* under dir and
// returns the name of the first.
func WriteInputs(t testing.TB, dir string, ar *txtar.Archive) string {
	t.Helper()
	first := ""
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = f.Name
		}
	}
	return first
}

// Load writes the archive's input files into a temporary folder and
// analyses them with sys.
func Load(t testing.TB, sys analysis.System, ar *txtar.Archive) *Outcome {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	entry := ""
	settings := analysis.Settings{}
	var links [][2]string
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "link:"); ok {
			name, target, _ := strings.Cut(v, "->")
			links = append(links, [2]string{strings.TrimSpace(name), strings.TrimSpace(target)})
		}
		if v, ok := strings.CutPrefix(line, "entry:"); ok {
			entry = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "setting:"); ok {
			k, val, _ := strings.Cut(strings.TrimSpace(v), "=")
			settings[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
	}
	// `$ROOT` in the inputs stands for the folder they are written to
	// (a configuration naming absolute paths of the workspace), and in the
	// diagnostics for it again.
	rooted := &txtar.Archive{Comment: ar.Comment}
	for _, f := range ar.Files {
		rooted.Files = append(rooted.Files, txtar.File{Name: f.Name, Data: bytes.ReplaceAll(f.Data, []byte("$ROOT"), []byte(dir))})
	}
	if first := WriteInputs(t, dir, rooted); entry == "" {
		entry = first
	}
	for _, l := range links {
		p := filepath.Join(dir, filepath.FromSlash(l[0]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(l[1]), p); err != nil {
			t.Fatal(err)
		}
	}
	if entry == "-" {
		entry = "" // the workspace as the language server sees it
	}
	ws := source.NewWorkspace(dir)
	entryURI := ""
	if entry != "" {
		entryURI = source.PathToURI(filepath.Join(dir, filepath.FromSlash(entry)))
	}
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: entryURI, Settings: settings}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	res := analysis.Analyze(sys, in, files)
	out := &Outcome{Result: res, Dir: dir, WS: ws, Input: in}
	for i := range res.Runs {
		if res.Runs[i].Entry == entryURI {
			out.Run = &res.Runs[i]
			break
		}
	}
	if out.Run == nil && len(res.Runs) > 0 {
		out.Run = &res.Runs[0]
	}
	if out.Run != nil {
		out.Refused = out.Run.Refused
		for _, st := range out.Run.Steps {
			out.Order = append(out.Order, st.Label)
		}
	}
	ds := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(ds)
	for _, d := range ds {
		out.Diags = append(out.Diags, strings.ReplaceAll(analysis.CheckLine(ws, dir, d), dir, "$ROOT"))
	}
	return out
}

// Run checks every *.txtar file in dir (recursively) as a subtest.
func Run(t *testing.T, newSystem func() analysis.System, dir string) {
	t.Helper()
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txtar") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Fatalf("no .txtar fixtures under %s", dir)
	}
	sort.Strings(paths)
	for _, p := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(p, dir+string(filepath.Separator)), ".txtar")
		t.Run(name, func(t *testing.T) { RunFile(t, newSystem(), p) })
	}
}

// RunFile checks one fixture.
func RunFile(t *testing.T, sys analysis.System, path string) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := Load(t, sys, ar)
	got := map[string]string{
		"want/order":       lines(out.Order),
		"want/diagnostics": lines(out.Diags),
		"want/refused":     boolLine(out.Refused),
	}
	if *update {
		changed := false
		for i := range ar.Files {
			if g, ok := got[ar.Files[i].Name]; ok && string(ar.Files[i].Data) != g {
				ar.Files[i].Data = []byte(g)
				changed = true
			}
		}
		if changed {
			if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, f := range ar.Files {
		g, ok := got[f.Name]
		if !ok {
			continue
		}
		if want := string(f.Data); want != g {
			t.Errorf("%s mismatch\n--- want\n%s--- got\n%s", f.Name, want, g)
		}
	}
}

func lines(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return strings.Join(ss, "\n") + "\n"
}

func boolLine(b bool) string {
	if b {
		return "true\n"
	}
	return "false\n"
}
