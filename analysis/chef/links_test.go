package chef_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

const tree = `entry: policies/app/Policyfile.rb
-- policies/app/Policyfile.rb --
name "app"
include_policy "mid", path: "../mid/Policyfile.lock.json"
run_list "web::server", "app"
named_run_list :deploy, "app::deploy"
cookbook "app", path: "../../cookbooks/app"
-- policies/mid/Policyfile.rb --
name "mid"
include_policy "base", path: "../base.lock.json"
run_list "mid"
-- policies/mid/Policyfile.lock.json --
{"revision_id": "2222222222", "name": "mid",
 "run_list": ["recipe[base::default]", "recipe[mid::default]"],
 "named_run_lists": {"deploy": ["recipe[mid::deploy]"]},
 "included_policy_locks": [{"name": "base", "revision_id": "1111111111", "source_options": {"path": "../base.lock.json"}}],
 "cookbook_locks": {"base": {"version": "1.0.0", "source_options": {}}, "mid": {"version": "1.0.0", "source_options": {}}}}
-- policies/base.lock.json --
{"revision_id": "1111111111", "name": "base", "run_list": ["recipe[base::default]"], "cookbook_locks": {"base": {"version": "1.0.0", "source_options": {}}}}
-- cookbooks/app/metadata.rb --
name "app"
-- cookbooks/app/recipes/default.rb --
log "app"
-- cookbooks/web/recipes/server.rb --
log "web"
-- cookbooks/mid/recipes/default.rb --
log "mid"
`

func load(t *testing.T) *analysistest.Outcome {
	t.Helper()
	return analysistest.Load(t, chef.New(), txtar.Parse([]byte(tree)))
}

func uriOf(o *analysistest.Outcome, rel string) string {
	return source.PathToURI(filepath.Join(o.Dir, filepath.FromSlash(rel)))
}

func offsetOf(t *testing.T, o *analysistest.Outcome, rel, needle string) int {
	t.Helper()
	f := o.WS.Lookup(filepath.Join(o.Dir, filepath.FromSlash(rel)))
	i := strings.Index(string(f.Text), needle)
	if i < 0 {
		t.Fatalf("%q not in %s", needle, rel)
	}
	return i
}

func fact(n *analysis.Node, label string) string {
	for _, f := range n.Facts {
		if f.Label == label {
			return f.Value
		}
	}
	return ""
}

func TestMergedOrderAndFacts(t *testing.T) {
	o := load(t)
	want := "recipe[base::default] recipe[mid::default] recipe[web::server] recipe[app::default]"
	if got := strings.Join(o.Order, " "); got != want {
		t.Fatalf("order = %s\nwant    %s", got, want)
	}
	if len(o.Diags) != 0 {
		t.Errorf("unexpected diagnostics:\n%s", strings.Join(o.Diags, "\n"))
	}
	base := o.Run.Steps[0].Node
	if got := fact(base, "from"); !strings.HasPrefix(got, "included policy base (via mid)") {
		t.Errorf("from fact of base = %q", got)
	}
	if got := fact(base, "position"); got != "1 of 4 in the merged run list of app" {
		t.Errorf("position fact = %q", got)
	}
	// hovering the include_policy name finds the include node first
	off := offsetOf(t, o, "policies/app/Policyfile.rb", `include_policy`)
	ns := o.Result.NodesAt(uriOf(o, "policies/app/Policyfile.rb"), off+1)
	if len(ns) == 0 || ns[0].Kind != "include_policy" {
		t.Fatalf("nodes at include name = %v", ns)
	}
	if got := fact(ns[0], "1"); got != "recipe[base::default] (from base (via mid))" {
		t.Errorf("merged list fact on include = %q", got)
	}
	// the named run list merges mid's deploy list first
	var named *analysis.Run
	for i := range o.Result.Runs {
		if o.Result.Runs[i].Name == "app named_run_list deploy" {
			named = &o.Result.Runs[i]
		}
	}
	if named == nil {
		t.Fatal("no run for the named run list")
	}
	var labels []string
	for _, s := range named.Steps {
		labels = append(labels, s.Label)
	}
	if got := strings.Join(labels, " "); got != "recipe[mid::deploy] recipe[app::deploy]" {
		t.Errorf("named run list = %s", got)
	}
}

func TestLinks(t *testing.T) {
	o := load(t)
	app := uriOf(o, "policies/app/Policyfile.rb")
	// include_policy -> the lock, and the policy's name in the Policyfile
	// beside it (a node; the file itself would be the same place twice)
	ls := o.Result.LinksAt(app, offsetOf(t, o, "policies/app/Policyfile.rb", `"mid"`))
	if len(ls) != 1 {
		t.Fatalf("links at include_policy: %d", len(ls))
	}
	var files []string
	for _, f := range ls[0].Files {
		files = append(files, strings.TrimPrefix(f.URI, source.PathToURI(o.Dir)+"/"))
	}
	if got := strings.Join(files, " "); got != "policies/mid/Policyfile.lock.json" {
		t.Errorf("include targets = %s", got)
	}
	if len(ls[0].Nodes) == 0 || ls[0].Nodes[0].Ref != "mid" || !strings.HasSuffix(ls[0].Nodes[0].Decl.URI, "policies/mid/Policyfile.rb") {
		t.Fatalf("include link nodes = %v", ls[0].Nodes)
	}
	// references back: who includes mid
	if back := o.Result.LinksTo(ls[0].Nodes[0]); len(back) != 1 || back[0].At.URI != app {
		t.Errorf("references to mid = %v", back)
	}
	// recipe -> cookbooks/<cb>/recipes/<r>.rb (through cookbook path: and by folder)
	for needle, want := range map[string]string{`"web::server"`: "cookbooks/web/recipes/server.rb", "\"app\"\nnamed": "cookbooks/app/recipes/default.rb", `"../../cookbooks/app"`: "cookbooks/app/metadata.rb"} {
		ls := o.Result.LinksAt(app, offsetOf(t, o, "policies/app/Policyfile.rb", needle)+1)
		if len(ls) == 0 || len(ls[0].Files) == 0 {
			t.Errorf("no link at %s", needle)
			continue
		}
		if got := ls[0].Files[0].URI; got != uriOf(o, want) {
			t.Errorf("link at %s = %s, want %s", needle, got, want)
		}
	}
	// a lock's run list links to recipes too
	lockURI := uriOf(o, "policies/mid/Policyfile.lock.json")
	if ls := o.Result.LinksAt(lockURI, offsetOf(t, o, "policies/mid/Policyfile.lock.json", `"recipe[mid::default]"`)+1); len(ls) != 1 || ls[0].Files[0].URI != uriOf(o, "cookbooks/mid/recipes/default.rb") {
		t.Errorf("links from the lock entry: %+v", ls)
	}
	// the include graph
	calls := 0
	for _, e := range o.Result.Graph.Edges {
		if e.Kind == analysis.Call {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("include edges = %d, want 2 (app->mid, mid->base)", calls)
	}
}

// `ordering-lsp order myapp/Policyfile.rb` analyses that one file with no
// workspace folder: a git include whose lock path exists above the
// Policyfile (the same repository) still resolves, by name and revision.
func TestGitIncludeFromSameRepositoryWithoutWorkspace(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/rfc097/git.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	analysistest.WriteInputs(t, dir, ar)
	ws := source.NewWorkspace()
	entry := filepath.Join(dir, "myapp", "Policyfile.rb")
	sys := chef.New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: source.PathToURI(entry)}
	res := analysis.Analyze(sys, in, []*source.File{ws.Lookup(entry)})
	var got []string
	for _, r := range res.Runs {
		if r.Entry == in.Entry {
			for _, s := range r.Steps {
				got = append(got, s.Label)
			}
		}
	}
	if strings.Join(got, " ") != "recipe[base::default] recipe[mycookbook::default]" {
		t.Errorf("order = %v", got)
	}
}

// TestStaleLockOnce: a stale lock gives one diagnostic, on the Policyfile,
// whose related places point at each difference in the lock.
func TestStaleLockOnce(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "include", "stale-lock-once.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	o := analysistest.Load(t, chef.New(), ar)
	got := map[string][]string{}
	for _, d := range o.Result.Diags {
		if d.Code != "stale-lock" {
			continue
		}
		w := analysis.Where(o.WS, o.Dir, d.At)
		for _, r := range d.Related {
			got[w] = append(got[w], analysis.Where(o.WS, o.Dir, r.At)+" "+r.Message)
		}
	}
	want := map[string][]string{
		"home/Policyfile.rb:3:1": {
			"home/Policyfile.lock.json:4:3 Policyfile.lock.json: run_list differs",
			"home/Policyfile.lock.json:8:3 Policyfile.lock.json: cookbook_locks lacks dnsmasq, plexapp",
			"home/Policyfile.rb:9:1 in the Policyfile: cookbook_locks lacks dnsmasq, plexapp",
		},
		"web/Policyfile.rb:4:1": {
			"web/Policyfile.lock.json:5:3 Policyfile.lock.json: cookbook_locks lacks ng",
		},
		"jenkins/Policyfile.rb:7:1": {
			"jenkins/Policyfile.lock.json:1:1 Policyfile.lock.json: named_run_list update_jenkins is missing",
		},
	}
	if len(got) != len(want) {
		t.Fatalf("stale-lock diagnostics at %v, want one per lock at %v", got, want)
	}
	for at, rel := range want {
		if strings.Join(got[at], "\n") != strings.Join(rel, "\n") {
			t.Errorf("%s related:\n%s\nwant\n%s", at, strings.Join(got[at], "\n"), strings.Join(rel, "\n"))
		}
	}
}
