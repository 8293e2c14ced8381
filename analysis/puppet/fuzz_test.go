package puppet_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzAnalyze: no manifest may panic or hang the whole analysis, in the
// server (no entry) or as `order` would run it; and what `check` asks for
// (diagnostics only) gives the diagnostics of a complete analysis.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"notify { 'a': require => Notify['b'] } notify { 'b': before => Notify['a'] }",
		"class a { include b } class b { contain a } include a",
		"define d() { d { \"x${title}\": } } d { 'a': }",
		"@notify { 'v': } Notify <| |> -> Notify['v'] realize(Notify['v'])",
		"stage { 'pre': before => Stage['main'] } class { 'c': stage => pre } class c { }",
		"file { '/a/b': owner => u } user { 'u': groups => ['g'] } group { 'g': } exec { 'e': cwd => '/a', command => '/a/b' }",
		"$x = [1,2] $x.each |$i| { notify { \"n${i}\": } } Notify { before => Notify['n1'] }",
		"node default { notify { 'n': } } node 'puppet-order' { }",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, entry bool) {
		ws := source.NewWorkspace()
		file := source.NewFile("untitled:fuzz.pp", "", src)
		ws.SetOverlay(file)
		req := &analysis.Request{Ctx: context.Background(), Files: []*source.File{file}, Workspace: ws, Settings: analysis.Settings{}}
		if entry {
			req.Entry = file.URI
		}
		if !entry {
			once := func(only bool) []string {
				r := *req
				r.Once, r.DiagnosticsOnly = true, only
				var out []string
				ds := puppet.New().Analyze(&r).Diags
				analysis.SortDiagnostics(ds)
				for _, d := range ds {
					out = append(out, fmt.Sprintf("%v %v %s %s %d", d.At, d.Severity, d.Code, d.Message, len(d.Related)))
				}
				return out
			}
			if full, only := once(false), once(true); !slices.Equal(full, only) {
				t.Fatalf("diagnostics only:\n%q\ncomplete analysis:\n%q", only, full)
			}
		}
		sys := puppet.New()
		res := sys.Analyze(req)
		for _, d := range res.Diags {
			if d.At.Start < 0 || d.At.End > len(src) || d.At.Start > d.At.End {
				t.Fatalf("diagnostic span %v out of %d: %s", d.At, len(src), d.Message)
			}
		}
		// Edit the text (append a line) and analyse again with the same
		// System: the chunk and run caches must cope with anything.
		edited := source.NewFile(file.URI, "", append(append([]byte(nil), src...), "\nnotify { 'fuzz-edit': }\n"...))
		ws.SetOverlay(edited)
		req.Files = []*source.File{edited}
		if entry {
			req.Entry = edited.URI
		}
		sys.Analyze(req)
	})
}
