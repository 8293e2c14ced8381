package puppet_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
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

// FuzzFollow: whatever the manifest and whatever is typed into it, a
// result that follows the edit without an analysis (Result.Follow: a
// value nobody reads, text the parser drops) reads exactly as a fresh
// analysis of the new text, and nothing panics.
func FuzzFollow(f *testing.F) {
	for _, s := range []string{
		"class web {\n  file { '/etc/web': ensure => directory, mode => '0755' }\n  notify { 'n': require => File['/etc/web'] }\n}\ninclude web\n",
		"file { '/a': owner => 'u', mode => '0644' }\nuser { 'u': }\nFile <| mode == '0644' |>\n",
		"class c {\n  if $x == 'a' { notify { 'a': message => \"hi\" } }\n  package { 'p' }\n}\ninclude c\n",
		"notify { 'a': message => @(EOT)\n  text\n  | EOT\n}\n",
	} {
		f.Add([]byte(s), uint16(len(s)/2), "x")
		f.Add([]byte(s), uint16(len(s)/3), " ")
		f.Add([]byte(s), uint16(20), "'")
	}
	f.Fuzz(func(t *testing.T, src []byte, at uint16, ins string) {
		if len(src) > 4096 || len(ins) > 64 {
			return
		}
		i := int(at) % (len(src) + 1)
		analyse := func(text []byte) (*analysis.Result, *source.File, *source.Workspace) {
			ws := source.NewWorkspace()
			file := source.NewFile("untitled:fuzz.pp", "", text)
			ws.SetOverlay(file)
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
			return analysis.Analyze(puppet.New(), in, []*source.File{file}), file, ws
		}
		prev, old, _ := analyse(src)
		text := append(append(append([]byte(nil), src[:i]...), ins...), src[i:]...)
		fresh, cur, ws := analyse(text)
		line := func(uri string, off int) int {
			if f := analysis.FileOf(ws, uri); f != nil {
				l, _ := f.Line1Col1(off)
				return l
			}
			return 0
		}
		got, ok := prev.FollowEdit(old, cur, analysis.NewShift(old.URI, old.Text, cur.Text), line)
		if !ok {
			return
		}
		if g, w := analysistest.Dump(got), analysistest.Dump(fresh); g != w {
			t.Fatalf("%q typed at %d, followed: not a fresh analysis's\n%s", ins, i, analysistest.FirstDifference(w, g, "fresh", "followed"))
		}
	})
}
