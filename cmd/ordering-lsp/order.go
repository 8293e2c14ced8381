package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// cmdOrder prints the execution order the real tool would use for one
// entry (a manifest, an SLS, a policy, a Policyfile, a Rudder export), one
// step per line in the tool's oracle notation. Exit status 1 means the
// tool would refuse the run (nothing on stdout) or there are errors. Each system contributes its
// own options (--modulepath, --file-root, --node-groups...).
// systemFlags adds --set and every system's own options (--facts,
// --modulepath, --file-root...): check, order and graph take the same.
func systemFlags(fs *flag.FlagSet, settings analysis.Settings) {
	fs.Var(settingsFlag(settings), "set", "a setting as key=value (repeatable), e.g. puppet.ordering=title-hash")
	fs.Func("node", "the node to analyse for: the name of a fact set (Puppet --facts folder or export) or minion, or a certname node blocks match", func(v string) error {
		settings[analysis.NodeSetting] = v
		return nil
	})
	seen := map[string]bool{}
	for _, s := range newSystems() {
		for _, f := range s.Flags() {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			key := f.Key
			if f.Bool {
				fs.BoolFunc(f.Name, f.Help, func(v string) error { settings[key] = v; return nil })
			} else if f.Path {
				fs.Func(f.Name, f.Help, func(v string) error { settings[key] = absList(v); return nil })
			} else {
				fs.Func(f.Name, f.Help, func(v string) error { settings[key] = v; return nil })
			}
		}
	}
}

// absList makes each of the colon-separated paths v absolute against
// the current folder.
func absList(v string) string {
	ps := filepath.SplitList(v)
	for i, p := range ps {
		if a, err := filepath.Abs(p); err == nil && p != "" {
			ps[i] = a
		}
	}
	return strings.Join(ps, string(filepath.ListSeparator))
}

// analyseOne analyses a file or folder with the system that owns it (a
// folder: the one owning most files in it), as order and why need;
// orderOnly: the caller reads only the problems and the steps (order),
// not the hover facts and links. On failure it reports on stderr and
// returns a nil result and the exit code.
func analyseOne(arg string, settings analysis.Settings, orderOnly bool, stderr io.Writer) (*analysis.Result, *source.Workspace, analysis.Input, int) {
	target, err := filepath.Abs(arg)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return nil, nil, analysis.Input{}, 2
	}
	st, err := os.Stat(target)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return nil, nil, analysis.Input{}, 2
	}
	ws := source.NewWorkspace()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Paths: []string{target}, Entry: source.PathToURI(target), Settings: settings, Once: true, OrderOnly: orderOnly}
	sys := newSystems()
	found := analysis.Discover(sys, in)
	// A file belongs to one system; a folder goes to the system owning the
	// most files in it.
	var owner analysis.System
	for _, s := range sys {
		if len(found[s]) > 0 && (owner == nil || len(found[s]) > len(found[owner])) {
			owner = s
		}
	}
	if owner == nil {
		what := "file"
		if st.IsDir() {
			what = "folder"
		}
		fmt.Fprintf(stderr, "ordering-lsp: no supported system recognises the %s %s (Puppet .pp, Salt .sls, CFEngine .cf, Chef Policyfile.rb, Rudder exports)\n", what, arg)
		return nil, nil, analysis.Input{}, 2
	}
	files := analysis.Load([]analysis.System{owner}, in, map[analysis.System][]string{owner: found[owner]})
	res := analysis.Analyze(owner, in, files[owner])

	return res, ws, in, 0
}

func cmdOrder(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("order", flag.ContinueOnError)
	fs.SetOutput(stderr)
	settings := analysis.Settings{}
	systemFlags(fs, settings)
	install := installFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: ordering-lsp order [options] FILE|DIR")
		fs.PrintDefaults()
		return 2
	}
	if *install && !installDeclared([]string{fs.Arg(0)}, settings, stderr) {
		return 2
	}
	res, ws, in, code := analyseOne(fs.Arg(0), settings, true, stderr)
	if res == nil {
		return code
	}
	cwd, _ := os.Getwd()
	diags := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(diags)
	printed := 0
	for _, d := range diags {
		// errors and warnings anywhere; information on the entry file
		// itself (what the order cannot show: an SLS served from outside)
		if d.Severity <= analysis.Warning || d.At.URI == in.Entry {
			fmt.Fprintln(stderr, analysis.CheckLine(ws, cwd, d))
			printed++
		}
	}
	var run *analysis.Run
	for i := range res.Runs {
		if res.Runs[i].Entry == in.Entry {
			run = &res.Runs[i]
			break
		}
	}
	if run == nil && len(res.Runs) > 0 {
		run = &res.Runs[0]
	}
	if run == nil {
		fmt.Fprintf(stderr, "ordering-lsp: %s: nothing to run\n", fs.Arg(0))
		return 1
	}
	if run.Refused {
		// The real tool applies nothing: print nothing on stdout, as it would.
		// Say why when no error or warning did (the reason may be
		// information: a state of a file root outside the workspace).
		if printed == 0 {
			for _, d := range diags {
				fmt.Fprintln(stderr, analysis.CheckLine(ws, cwd, d))
			}
			fmt.Fprintf(stderr, "ordering-lsp: %s: the run would be refused, so nothing is applied\n", fs.Arg(0))
		}
		return 1
	}
	// one write for the whole order, not one per step (a thousand write
	// calls were a tenth of a warm run)
	out := bufio.NewWriterSize(stdout, 64<<10)
	for _, s := range run.Steps {
		out.WriteString(s.Label)
		out.WriteByte('\n')
	}
	out.Flush()
	// Some tools run on despite errors (Salt fails only the states whose
	// requisites are missing): the order is printed, and the exit status
	// still tells CI that something is wrong.
	for _, d := range diags {
		if d.Severity == analysis.Error {
			return 1
		}
	}
	return 0
}

func cmdGraph(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	settings := analysis.Settings{}
	systemFlags(fs, settings)
	install := installFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if *install && !installDeclared(paths, settings, stderr) {
		return 2
	}
	entry := ""
	if len(paths) == 1 {
		if abs, err := filepath.Abs(paths[0]); err == nil {
			entry = source.PathToURI(abs)
		}
	}
	_, results, err := analyzePaths(paths, entry, settings)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].System < results[j].System })
	if err := analysis.WriteDOT(stdout, results); err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	return 0
}
