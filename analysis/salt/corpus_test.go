package salt

import (
	"context"
	"fmt"
	"io/fs"
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

// TestCorpusIncremental edits real formulas file by file (a comment line
// above, every `name:` renamed, the original back) and checks that the
// warm system (patched and replayed runs) says what a fresh one says:
//
//	SALT_CORPUS_EDITS=/tmp/corpus/nginx-formula:/tmp/corpus/users-formula go test ./analysis/salt -run CorpusIncremental -v
func TestCorpusIncremental(t *testing.T) {
	spec := os.Getenv("SALT_CORPUS_EDITS")
	if spec == "" {
		t.Skip("set SALT_CORPUS_EDITS to folders of SLS files")
	}
	for _, dir := range strings.Split(spec, ":") {
		ws := source.NewWorkspace(dir)
		warm := New().(*System)
		analyzeRoot(warm, ws, "")
		var paths []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sls") && len(paths) < 60 {
				paths = append(paths, p)
			}
			return nil
		})
		before, edits := warm.patched, 0
		for _, p := range paths {
			orig, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			for i, text := range []string{"# edited\n" + string(orig), "# edited\n" + strings.ReplaceAll(string(orig), "- name: ", "- name: x"), string(orig)} {
				ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(text)))
				edits++
				if got, want := exact(analyzeRoot(warm, ws, ""), ws, dir), exact(analyzeRoot(New(), ws, ""), ws, dir); got != want {
					t.Errorf("%s, edit %d: warm analysis differs from a fresh one", p, i)
				}
			}
		}
		t.Logf("%s: %d edits of %d files, %d runs patched", dir, edits, len(paths), warm.patched-before)
	}
}
