package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// installFlag adds --install-modules (check, order, graph).
func installFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("install-modules", false, "first install what the repository declares but does not hold (a Puppetfile's modules, with r10k or else g10k), then analyse it; progress on stderr")
}

// installDeclared runs every install job of paths (analysis.Installer),
// one after the other, each command and its output on stderr. It reports
// false when a job failed or could not run (said on stderr): the analysis
// would only repeat the hints the user asked to resolve.
func installDeclared(paths []string, settings analysis.Settings, stderr io.Writer) bool {
	var abs []string
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
			return false
		}
		if _, err := os.Stat(a); err != nil {
			fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
			return false
		}
		abs = append(abs, a)
	}
	ctx := context.Background()
	in := analysis.Input{Ctx: ctx, Workspace: source.NewWorkspace(), Paths: abs, Settings: settings, Once: true}
	jobs := analysis.InstallJobs(newSystems(), in)
	if len(jobs) == 0 {
		fmt.Fprintln(stderr, "ordering-lsp: --install-modules: nothing to install (every module a Puppetfile declares is in its folder)")
		return true
	}
	cwd, _ := os.Getwd()
	ok := true
	for _, j := range jobs {
		if j.Err != "" {
			fmt.Fprintf(stderr, "ordering-lsp: %s\n", j.Err)
			ok = false
			continue
		}
		fmt.Fprintf(stderr, "ordering-lsp: %s: %s (in %s)\n", j.Title, strings.Join(j.Argv, " "), analysis.Rel(cwd, j.Dir))
		err := j.Run(ctx, func(line string) { fmt.Fprintf(stderr, "  %s\n", line) })
		if err != nil {
			fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
			ok = false
			continue
		}
		var filled []string
		for _, d := range j.Fills {
			filled = append(filled, analysis.Rel(cwd, d))
		}
		fmt.Fprintf(stderr, "ordering-lsp: installed %s\n", strings.Join(filled, ", "))
	}
	return ok
}
