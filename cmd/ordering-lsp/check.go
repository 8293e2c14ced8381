package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// settingsFlag collects repeated --set key=value options.
type settingsFlag analysis.Settings

func (s settingsFlag) String() string { return "" }
func (s settingsFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	s[k] = val
	return nil
}

// analyzePaths analyses the given files and folders with every system.
func analyzePaths(paths []string, entry string, settings analysis.Settings) (*source.Workspace, []*analysis.Result, error) {
	return analyzeFor(paths, entry, settings, false)
}

// analyzeFor is analyzePaths for a caller that may read only the
// diagnostics (check), which lets a system skip what only an editor shows.
func analyzeFor(paths []string, entry string, settings analysis.Settings, diagsOnly bool) (*source.Workspace, []*analysis.Result, error) {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, nil, err
		}
	}
	abs, err := absPaths(paths)
	if err != nil {
		return nil, nil, err
	}
	ws := source.NewWorkspace(folders(abs)...)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: abs, Entry: entry, Settings: settings, Once: true, DiagnosticsOnly: diagsOnly}
	return ws, analysis.AnalyzeAll(newSystems(), in), nil
}

func absPaths(paths []string) ([]string, error) {
	var abs []string
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		abs = append(abs, a)
	}
	return abs, nil
}

// folders are the folders among paths: the command line's workspace
// folders, as an editor's are the server's (a control repository's
// manifests/ folder is then its main manifest, as the server reads it).
func folders(paths []string) []string {
	var out []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// analyzeMatrix is analyzeFor(paths, "", settings, true) for check, but a
// system that knows nodes with data (a fact-set folder) analyses the
// workspace once per node (unless --node picks one), and returns the
// runs x nodes matrix besides the merged diagnostics.
func analyzeMatrix(paths []string, settings analysis.Settings) (*source.Workspace, []*analysis.Result, []*analysis.Matrix, error) {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, nil, nil, err
		}
	}
	abs, err := absPaths(paths)
	if err != nil {
		return nil, nil, nil, err
	}
	ws := source.NewWorkspace(folders(abs)...)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: abs, Settings: settings, Once: true, DiagnosticsOnly: true}
	systems := newSystems()
	files := analysis.Files(systems, in)
	var results []*analysis.Result
	var matrices []*analysis.Matrix
	for _, s := range systems {
		if len(files[s]) == 0 {
			continue
		}
		if settings.Get(analysis.NodeSetting, "") == "" {
			if res, m := analysis.AnalyzeNodes(s, in, files[s]); res != nil {
				results = append(results, res)
				matrices = append(matrices, m)
				continue
			}
		}
		results = append(results, analysis.Analyze(s, in, files[s]))
	}
	return ws, results, matrices, nil
}

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, json or sarif")
	quiet := fs.Bool("quiet", false, "text format: only the errors, one line each, no summary")
	sevFlag := fs.String("severity", "hint", "the lowest severity reported: error, warning, info or hint (the exit status is 1 on an error all the same)")
	settings := analysis.Settings{}
	systemFlags(fs, settings)
	install := installFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	lowest, ok := severityNamed[*sevFlag]
	if !ok {
		fmt.Fprintf(stderr, "ordering-lsp: unknown severity %q (error, warning, info, hint)\n", *sevFlag)
		return 2
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if *install && !installDeclared(paths, settings, stderr) {
		return 2
	}
	ws, results, matrices, err := analyzeMatrix(paths, settings)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	heapProfileAnalysed()
	var diags []analysis.Diagnostic
	for _, r := range results {
		diags = append(diags, r.Diags...)
	}
	analysis.SortDiagnostics(diags)
	failed := false
	for _, d := range diags {
		failed = failed || d.Severity == analysis.Error
	}
	diags, hidden := belowSeverity(diags, lowest)
	cwd, _ := os.Getwd()
	switch *format {
	case "text":
		files := map[string]bool{}
		for _, r := range results {
			for _, u := range r.Files {
				files[u] = true
			}
		}
		// Salt's minion table (Result.Nodes), Puppet's fact-set matrix
		writeText(stdout, ws, cwd, diags, len(files), textOpts{quiet: *quiet, color: useColor(stdout), nodes: allNodes(results), hidden: hidden})
		if !*quiet {
			for _, m := range matrices {
				writeMatrix(stdout, m)
			}
		}
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(jsonDiagnostics(ws, cwd, diags)); err != nil {
			fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
			return 2
		}
	case "sarif":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sarifLog(ws, cwd, diags)); err != nil {
			fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
			return 2
		}
	default:
		fmt.Fprintf(stderr, "ordering-lsp: unknown format %q (text, json, sarif)\n", *format)
		return 2
	}
	if failed {
		return 1
	}
	return 0
}

// severityNamed: the --severity names.
var severityNamed = map[string]analysis.Severity{"error": analysis.Error, "warning": analysis.Warning, "info": analysis.Info, "hint": analysis.Hint}

// belowSeverity keeps the diagnostics at lowest or above (a workspace
// of modules the repository does not hold has a hint on each of their
// resources: greynolds123's 456 types) and counts the others by
// severity, for the summary to say they were left out.
func belowSeverity(diags []analysis.Diagnostic, lowest analysis.Severity) ([]analysis.Diagnostic, map[analysis.Severity]int) {
	var kept []analysis.Diagnostic
	hidden := map[analysis.Severity]int{}
	for _, d := range diags {
		if d.Severity > lowest {
			hidden[d.Severity]++
			continue
		}
		kept = append(kept, d)
	}
	return kept, hidden
}

type jsonLocation struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Message   string `json:"message,omitempty"`
}

type jsonDiagnostic struct {
	jsonLocation
	Severity string         `json:"severity"`
	Code     string         `json:"code,omitempty"`
	Source   string         `json:"source"`
	Related  []jsonLocation `json:"related,omitempty"`
	// Nodes: the nodes the problem occurs on, when check analysed the
	// workspace once per node (fact sets, minions).
	Nodes []string `json:"nodes,omitempty"`
}

// locate renders a span with 1-based lines and 1-based byte columns.
func locate(ws *source.Workspace, base string, sp source.Span) jsonLocation {
	loc := jsonLocation{File: displayPath(base, sp.URI)}
	if f := analysis.FileOf(ws, sp.URI); f != nil {
		loc.Line, loc.Column = f.Line1Col1(sp.Start)
		loc.EndLine, loc.EndColumn = f.Line1Col1(max(sp.End, sp.Start))
	}
	return loc
}

func displayPath(base, uri string) string {
	if p := source.URIToPath(uri); p != "" {
		return analysis.Rel(base, p)
	}
	return uri
}

func jsonDiagnostics(ws *source.Workspace, base string, diags []analysis.Diagnostic) []jsonDiagnostic {
	out := []jsonDiagnostic{}
	for _, d := range diags {
		jd := jsonDiagnostic{jsonLocation: locate(ws, base, d.At), Severity: d.Severity.String(), Code: d.Code, Source: d.Source, Nodes: d.Nodes}
		jd.Message = d.Message
		for _, r := range d.Related {
			l := locate(ws, base, r.At)
			l.Message = r.Message
			jd.Related = append(jd.Related, l)
		}
		out = append(out, jd)
	}
	return out
}
