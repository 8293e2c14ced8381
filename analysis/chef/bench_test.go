package chef_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// genPolicyfile writes a Policyfile with n cookbooks, n attributes and a
// run list of n recipes.
func genPolicyfile(n int) []byte {
	var b strings.Builder
	b.WriteString("name \"big\"\ndefault_source :supermarket\n")
	b.WriteString("run_list ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "\"cb%d::r%d\"", i, i)
	}
	b.WriteString("\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "cookbook \"cb%d\", \"~> %d.0\", git: \"https://example.com/cb%d.git\", branch: \"main\"\n", i, i%7, i)
		fmt.Fprintf(&b, "default[\"cb%d\"][\"settings\"] = { \"port\" => %d, \"hosts\" => [\"a%d\", \"b\"], enabled: true }\n", i, 8000+i, i)
	}
	return []byte(b.String())
}

// genWorkspace writes a tree of policies: each of width leaves is included
// by one of depth levels of middle policies, all included by app.
func genWorkspace(b *testing.B, width int) string {
	dir := b.TempDir()
	var app strings.Builder
	app.WriteString("name \"app\"\n")
	for i := 0; i < width; i++ {
		name := fmt.Sprintf("p%d", i)
		fmt.Fprintf(&app, "include_policy %q, path: \"policies/%s.lock.json\"\n", name, name)
		lock := fmt.Sprintf(`{"revision_id": "%010d", "name": %q, "run_list": ["recipe[%s::default]", "recipe[shared::default]"],
 "cookbook_locks": {%q: {"version": "1.0.%d", "source_options": {}}, "shared": {"version": "2.0.0", "source_options": {}}},
 "default_attributes": {%q: {"port": %d}, "shared": {"level": 1}}, "override_attributes": {},
 "solution_dependencies": {"Policyfile": [], "dependencies": {"%s (1.0.%d)": [], "shared (2.0.0)": []}}}`, i, name, name, name, i, name, i, name, i)
		if err := os.MkdirAll(filepath.Join(dir, "policies"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "policies", name+".lock.json"), []byte(lock), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&app, "default[%q][\"port\"] = %d\n", name, i)
	}
	app.WriteString("run_list \"app\"\n")
	if err := os.WriteFile(filepath.Join(dir, "Policyfile.rb"), []byte(app.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkParseCold parses a 1000-cookbook Policyfile with an empty cache.
func BenchmarkParseCold(b *testing.B) {
	src := genPolicyfile(1000)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		pchef.Read(src, pchef.NewParser().Parse(src))
	}
}

// BenchmarkParseWarm re-parses it after a one-statement edit (the server's
// case: every other statement comes from the cache).
func BenchmarkParseWarm(b *testing.B) {
	src := genPolicyfile(1000)
	p := pchef.NewParser()
	p.Parse(src)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		edited := append([]byte(nil), src...)
		edited = append(edited, fmt.Sprintf("default[\"x\"] = %d\n", i)...)
		pchef.Read(edited, p.Parse(edited))
	}
}

// BenchmarkAnalyzeIncludes analyses a policy including 200 locks.
func BenchmarkAnalyzeIncludes(b *testing.B) {
	dir := genWorkspace(b, 200)
	sys := chef.New()
	for i := 0; i < b.N; i++ {
		ws := source.NewWorkspace(dir)
		in := analysis.Input{Ctx: context.Background(), Workspace: ws}
		files := analysis.Files([]analysis.System{sys}, in)[sys]
		res := analysis.Analyze(sys, in, files)
		if len(res.Runs) == 0 {
			b.Fatal("no run")
		}
	}
}
