package chef_test

import (
	"context"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzAnalyze runs the whole analysis on a Policyfile that includes a lock
// (and a lock that includes it back), all in memory: no input may panic or
// hang, and every diagnostic must land inside its file.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte("name 'app'\ninclude_policy 'base', path: 'base.lock.json'\nrun_list 'app'\ndefault['a']['b'] = 1\ncookbook 'x', '~> 1.0'\n"),
		[]byte(`{"name": "base", "revision_id": "1", "run_list": ["recipe[base]"], "cookbook_locks": {"x": {"version": "2.0.0"}}, "default_attributes": {"a": {"b": 2}}, "included_policy_locks": [{"name": "app", "revision_id": "2", "source_options": {"path": "Policyfile.lock.json"}}]}`))
	f.Add([]byte("include_policy 'base', path: '.'\nnamed_run_list :x, 'a'\n"), []byte(`{"name": "base", "named_run_lists": {"x": ["recipe[b]"]}}`))
	f.Fuzz(func(t *testing.T, rb, lock []byte) {
		ws := source.NewWorkspace()
		files := map[string][]byte{
			"/fuzz/Policyfile.rb":        rb,
			"/fuzz/base.lock.json":       lock,
			"/fuzz/Policyfile.lock.json": lock,
		}
		for p, text := range files {
			ws.SetOverlay(source.FileFromPath(p, text))
		}
		sys := chef.New()
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: source.PathToURI("/fuzz/Policyfile.rb")}
		res := analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
		for _, d := range res.Diags {
			if d.Code == "internal-error" {
				t.Fatal(d.Message)
			}
			text := files[source.URIToPath(d.At.URI)]
			if d.At.Start < 0 || d.At.End > len(text) || d.At.Start > d.At.End {
				t.Fatalf("diagnostic %q at %d..%d outside %s (%d bytes)", d.Message, d.At.Start, d.At.End, d.At.URI, len(text))
			}
		}
	})
}
