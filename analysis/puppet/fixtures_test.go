package puppet_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestFixtures checks every testdata/*.txtar. Besides the common sections
// (want/order, want/diagnostics, want/refused, checked by analysistest),
// Puppet fixtures may hold:
//
//	want/links    every link: `file:line:col 'text' -> Ref @file:line:col, ...`
//	want/related  related information of each diagnostic
//	want/facts    hover facts of visible nodes that have some
//	want/runs     (server mode) each run's name and steps
//	want/codes    each diagnostic's place and code
//
// A comment line `mode: server` analyses the workspace as the language
// server does (no entry file).
func TestFixtures(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	sort.Strings(paths)
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			server := strings.Contains(string(ar.Comment), "mode: server")
			if !server {
				analysistest.RunFile(t, puppet.New(), p)
			}
			checkExtra(t, p, ar, server)
		})
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func checkExtra(t *testing.T, path string, ar *txtar.Archive, server bool) {
	var res *analysis.Result
	var ws *source.Workspace
	var dir string
	if server {
		res, ws, dir = loadServer(t, ar)
	} else {
		out := analysistest.Load(t, puppet.New(), ar)
		res, ws, dir = out.Result, out.WS, out.Dir
	}
	got := map[string]string{
		"want/links":   renderLinks(res, ws, dir),
		"want/related": renderRelated(res, ws, dir),
		"want/facts":   renderFacts(res, ws, dir),
		"want/runs":    renderRuns(res),
		"want/codes":   renderCodes(res, ws, dir),
	}
	if server {
		var ds []string
		diags := append([]analysis.Diagnostic(nil), res.Diags...)
		analysis.SortDiagnostics(diags)
		for _, d := range diags {
			ds = append(ds, analysis.CheckLine(ws, dir, d))
		}
		got["want/diagnostics"] = joinLines(ds)
	}
	if updating() {
		ar2, _ := txtar.ParseFile(path)
		changed := false
		for i := range ar2.Files {
			if g, ok := got[ar2.Files[i].Name]; ok && string(ar2.Files[i].Data) != g {
				ar2.Files[i].Data = []byte(g)
				changed = true
			}
		}
		if changed {
			os.WriteFile(path, txtar.Format(ar2), 0o644)
		}
		return
	}
	for _, f := range ar.Files {
		g, ok := got[f.Name]
		if !ok || (!server && f.Name == "want/diagnostics") {
			continue
		}
		if string(f.Data) != g {
			t.Errorf("%s mismatch\n--- want\n%s--- got\n%s", f.Name, f.Data, g)
		}
	}
}

func loadServer(t *testing.T, ar *txtar.Archive) (*analysis.Result, *source.Workspace, string) {
	return loadServerWith(t, ar, puppet.New())
}

// loadServerWith analyses the fixture's files with sys as the language
// server does.
func loadServerWith(t *testing.T, ar *txtar.Archive, sys analysis.System) (*analysis.Result, *source.Workspace, string) {
	dir, settings := writeServer(t, ar)
	res, ws := analyzeServer(dir, settings, sys)
	return res, ws, dir
}

// writeServer writes the fixture's files (but its want/ sections) into a
// new folder and reads its settings.
func writeServer(t *testing.T, ar *txtar.Archive) (string, analysis.Settings) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	settings := analysis.Settings{}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "setting:"); ok {
			k, val, _ := strings.Cut(strings.TrimSpace(v), "=")
			settings[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
	}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, settings
}

// analyzeServer analyses a folder with sys as the language server does.
func analyzeServer(dir string, settings analysis.Settings, sys analysis.System) (*analysis.Result, *source.Workspace) {
	ws := source.NewWorkspace(dir)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return analysis.Analyze(sys, in, files), ws
}

func joinLines(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return strings.Join(ss, "\n") + "\n"
}

func where(ws *source.Workspace, dir string, s source.Span) string {
	return analysis.Where(ws, dir, s)
}

func textOf(ws *source.Workspace, s source.Span) string {
	f := analysis.FileOf(ws, s.URI)
	if f == nil || s.End > len(f.Text) || s.Start > s.End {
		return "?"
	}
	return string(f.Text[s.Start:s.End])
}

func renderLinks(res *analysis.Result, ws *source.Workspace, dir string) string {
	var out []string
	for _, l := range res.Links {
		var ts []string
		for _, n := range l.Nodes {
			ts = append(ts, fmt.Sprintf("%s @%s", n.Ref, where(ws, dir, n.Decl)))
		}
		if len(ts) == 0 {
			ts = []string{"(nothing)"}
		}
		out = append(out, fmt.Sprintf("%s %s -> %s", where(ws, dir, l.At), textOf(ws, l.At), strings.Join(ts, ", ")))
	}
	sort.Strings(out)
	return joinLines(out)
}

func renderRelated(res *analysis.Result, ws *source.Workspace, dir string) string {
	var out []string
	diags := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(diags)
	for _, d := range diags {
		for _, r := range d.Related {
			out = append(out, fmt.Sprintf("%s: %s %s: %s", where(ws, dir, d.At), where(ws, dir, r.At), textOf(ws, r.At), r.Message))
		}
	}
	return joinLines(out)
}

// renderCodes: each diagnostic's place and code (the code decides which
// quick fixes the server offers: module-not-installed, the installer).
func renderCodes(res *analysis.Result, ws *source.Workspace, dir string) string {
	var out []string
	diags := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(diags)
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%s: %s", where(ws, dir, d.At), d.Code))
	}
	return joinLines(out)
}

func renderFacts(res *analysis.Result, ws *source.Workspace, dir string) string {
	var out []string
	for _, n := range res.Graph.Nodes {
		if n.Hidden || n.Kind != "resource" {
			continue
		}
		for _, f := range n.Facts {
			if f.Label == "defined type instance" || f.Label == "title" {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s: %s", n.Ref, f.Label, f.Value))
		}
	}
	sort.Strings(out)
	return joinLines(out)
}

func renderRuns(res *analysis.Result) string {
	var out []string
	for _, r := range res.Runs {
		var ls []string
		for _, s := range r.Steps {
			ls = append(ls, s.Label)
		}
		ref := ""
		if r.Refused {
			ref = " (refused)"
		}
		out = append(out, fmt.Sprintf("%s%s: %s", r.Name, ref, strings.Join(ls, " ")))
	}
	return joinLines(out)
}
