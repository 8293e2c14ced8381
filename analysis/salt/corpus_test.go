package salt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestCorpus analyses real Salt trees named in SALT_CORPUS (folders,
// separated by ':'; optional `=ROOT` suffix for the file root) and prints
// parse and requisite figures plus every error. It is skipped unless
// SALT_CORPUS is set: the corpora are fetched, never committed.
//
//	SALT_CORPUS=/tmp/corpus/nginx-formula go test ./analysis/salt -run Corpus -v
func TestCorpus(t *testing.T) {
	spec := os.Getenv("SALT_CORPUS")
	if spec == "" {
		t.Skip("set SALT_CORPUS to a folder of SLS files")
	}
	for _, item := range strings.Split(spec, ":") {
		dir, root, _ := strings.Cut(item, "=")
		ws := source.NewWorkspace(dir)
		sys := New()
		settings := analysis.Settings{}
		if root != "" {
			settings["salt.fileRoot"] = root
		}
		if e := os.Getenv("SALT_ENGINE"); e != "" {
			settings["salt.engine"] = e
		}
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings}
		if entry := os.Getenv("SALT_ENTRY"); entry != "" {
			abs, _ := filepath.Abs(entry)
			in.Entry = source.PathToURI(abs)
		}
		files := analysis.Files([]analysis.System{sys}, in)[sys]
		res := analysis.Analyze(sys, in, files)
		parsed, failed := 0, 0
		bad := map[string]bool{}
		for _, d := range res.Diags {
			if d.Code == "syntax" && d.Severity == analysis.Error {
				bad[d.At.URI] = true
			}
		}
		for _, f := range files {
			if bad[f.URI] {
				failed++
			} else {
				parsed++
			}
		}
		reqLinks, resolved := 0, 0
		for _, l := range res.Links {
			if len(l.Nodes) > 0 || len(l.Files) > 0 {
				resolved++
			}
			reqLinks++
		}
		counts := map[string]int{}
		var lines []string
		for _, d := range res.Diags {
			counts[d.Code+"/"+d.Severity.String()]++
			if d.Severity <= analysis.Warning || os.Getenv("SALT_ALL") != "" {
				lines = append(lines, analysis.CheckLine(ws, dir, d))
				if d.Code == "cycle" {
					for _, r := range d.Related {
						lines = append(lines, "      related "+analysis.Where(ws, dir, r.At)+" "+r.Message)
					}
				}
			}
		}
		missing := counts["missing-requisite/error"]
		// requisite entries written in the files, and what became of them
		linked := map[source.Span]bool{}
		for _, l := range res.Links {
			if len(l.Nodes) > 0 || len(l.Files) > 0 {
				linked[l.At] = true
			}
		}
		flagged := map[source.Span]bool{}
		for _, d := range res.Diags {
			if d.Code == "missing-requisite" || d.Code == "extend-missing" {
				flagged[d.At] = true
			}
		}
		entries, resolvedN, templated, flaggedN := 0, 0, 0, 0
		seenF := map[*sfile]bool{}
		for _, f := range sys.(*System).files {
			if seenF[f] {
				continue
			}
			seenF[f] = true
			for _, d := range f.ids {
				for _, sd := range d.decls {
					for _, ar := range sd.args {
						if !requisiteKeys[ar.key] || ar.key == "use" || ar.key == "use_in" {
							continue
						}
						for _, e := range ar.reqs {
							entries++
							switch {
							case linked[e.span]:
								resolvedN++
							case flagged[e.span]:
								flaggedN++
							default:
								templated++
							}
						}
					}
				}
			}
		}
		t.Logf("requisite entries: %d, resolved to states/files: %d, reported missing: %d, left open (templated target or open-ended run): %d",
			entries, resolvedN, flaggedN, templated)
		steps := 0
		for _, r := range res.Runs {
			steps += len(r.Steps)
		}
		sort.Strings(lines)
		t.Logf("%s: %d files, %d parse, %d with syntax errors; %d runs, %d steps; %d links; %d missing-requisite errors; diagnostics %v",
			dir, len(files), parsed, failed, len(res.Runs), steps, reqLinks, missing, counts)
		for _, l := range lines {
			t.Log(l)
		}
		if os.Getenv("SALT_ORDER") != "" {
			for _, r := range res.Runs {
				fmt.Printf("== %s (refused=%v)\n", r.Name, r.Refused)
				for _, s := range r.Steps {
					fmt.Println(s.Label)
				}
			}
		}
		_ = resolved
	}
}
