package cfengine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// Go-to-definition and hover: fixtures with a want/links section list
// every link (position, the words, the targets); want/hover lists the
// facts of every bundle and promise that has some.
func TestLinksAndHover(t *testing.T) {
	paths, _ := filepath.Glob("testdata/fixtures/*.txtar")
	n := 0
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wantLinks, wantHover *txtar.File
		for i := range ar.Files {
			switch ar.Files[i].Name {
			case "want/links":
				wantLinks = &ar.Files[i]
			case "want/hover":
				wantHover = &ar.Files[i]
			}
		}
		if wantLinks == nil && wantHover == nil {
			continue
		}
		n++
		out := analysistest.Load(t, New(), ar)
		ws, dir := out.WS, out.Dir
		if wantLinks != nil {
			var got []string
			links := append([]analysis.Link(nil), out.Result.Links...)
			sort.SliceStable(links, func(i, j int) bool {
				a, b := links[i].At, links[j].At
				if a.URI != b.URI {
					return a.URI < b.URI
				}
				return a.Start < b.Start
			})
			for _, l := range links {
				f := analysis.FileOf(ws, l.At.URI)
				if f == nil {
					continue
				}
				var targets []string
				for _, nd := range l.Nodes {
					targets = append(targets, nd.Ref)
				}
				for _, s := range l.Files {
					if s.Start == 0 && s.End == 0 {
						targets = append(targets, analysis.Rel(dir, strings.TrimPrefix(s.URI, "file://")))
					} else {
						targets = append(targets, analysis.Where(ws, dir, s))
					}
				}
				got = append(got, fmt.Sprintf("%s %s -> %s", analysis.Where(ws, dir, l.At), f.Text[l.At.Start:l.At.End], strings.Join(targets, ", ")))
			}
			check(t, path, "want/links", got, wantLinks, false)
		}
		if wantHover != nil {
			var got []string
			for _, nd := range out.Result.Graph.Nodes {
				if len(nd.Facts) == 0 {
					continue
				}
				var fs []string
				for _, f := range nd.Facts {
					fs = append(fs, f.Label+": "+f.Value)
				}
				got = append(got, nd.Ref+": "+strings.Join(fs, " | "))
			}
			check(t, path, "want/hover", got, wantHover, true)
		}
	}
	if n == 0 {
		t.Fatal("no fixture with want/links or want/hover")
	}
}

func check(t *testing.T, path, section string, got []string, want *txtar.File, sorted bool) {
	t.Helper()
	if sorted {
		sort.Strings(got)
	}
	g := strings.Join(got, "\n") + "\n"
	if g != string(want.Data) {
		t.Errorf("%s: %s mismatch\n--- want\n%s--- got\n%s", path, section, want.Data, g)
	}
}
