package puppet_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestAloneClassFollowsClassification: a class only Hiera data lists
// has a run of its own (nothing names it in an include) besides the run
// that includes it through the lookup. Its body's problems are that
// run's, under the condition the node must meet, while some run
// declares it; once no level lists it, the class analysed alone speaks
// again (a warning: it fails only where something outside the workspace
// declares it). The run cache restores the alone
// run's snapshot across the edits, so each analysis decides again: a
// long-lived System, a fresh one and a check (diagnostics only, once)
// agree at every step.
func TestAloneClassFollowsClassification(t *testing.T) {
	files := map[string]string{
		"hiera.yaml":                       "version: 5\nhierarchy:\n  - name: os\n    path: \"os/%{facts.os.family}.yaml\"\n  - name: common\n    path: common.yaml\n",
		"data/common.yaml":                 "classes:\n  - stdlib\n",
		"data/os/RedHat.yaml":              "classes:\n  - osonly\n",
		"environment.conf":                 "modulepath = site:modules\n",
		"Puppetfile":                       "mod 'puppetlabs/stdlib', '9.6.0'\n",
		"modules/stdlib/manifests/init.pp": "class stdlib { }\n",
		"manifests/site.pp":                "lookup('classes', Array[String], 'unique', []).include\n",
		"site/osonly/manifests/init.pp":    "class osonly {\n  include nosuch_os\n}\n",
		"site/other/manifests/init.pp":     "class other { notify { 'o': } }\n",
	}
	const (
		warning = "site/osonly/manifests/init.pp:2:11: warning: Could not find class ::nosuch_os (no module 'nosuch_os' in the module path, and Puppetfile does not declare it; Class[Osonly] is declared when the node reads data/os/RedHat.yaml)\n"
		errorL  = "site/osonly/manifests/init.pp:2:11: error: Could not find class ::nosuch_os (no module 'nosuch_os' in the module path, and Puppetfile does not declare it)\n"
		alone   = "site/osonly/manifests/init.pp:2:11: warning: Could not find class ::nosuch_os (no module 'nosuch_os' in the module path, and Puppetfile does not declare it) (only where Class[Osonly] is declared: nothing in the workspace declares it)\n"
	)
	steps := []struct {
		what, file, text, want string
	}{
		{"listed in os/RedHat.yaml", "", "", warning},
		{"listed nowhere", "data/os/RedHat.yaml", "classes:\n  - stdlib\n", alone},
		{"listed in os/RedHat.yaml again", "data/os/RedHat.yaml", "classes:\n  - osonly\n", warning},
		{"and in common.yaml", "data/common.yaml", "classes:\n  - osonly\n", errorL},
		{"an edit elsewhere", "site/other/manifests/init.pp", "class other { notify { 'p': } }\n", errorL},
	}
	dir := writeRepo(t, files)
	ws := source.NewWorkspace(dir)
	long := puppet.New()
	render := func(res *analysis.Result) string {
		diags := append([]analysis.Diagnostic(nil), res.Diags...)
		analysis.SortDiagnostics(diags)
		var out string
		for _, d := range diags {
			out += analysis.CheckLine(ws, dir, d) + "\n"
		}
		return out
	}
	for _, st := range steps {
		if st.file != "" {
			p := filepath.Join(dir, st.file)
			ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(st.text)))
		}
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		fs := analysis.Files([]analysis.System{long}, in)[long]
		if got := render(analysis.Analyze(long, in, fs)); got != st.want {
			t.Errorf("%s, long-lived System:\n got %s want %s", st.what, got, st.want)
		}
		fresh := puppet.New()
		if got := render(analysis.Analyze(fresh, in, fs)); got != st.want {
			t.Errorf("%s, fresh System:\n got %s want %s", st.what, got, st.want)
		}
		check := in
		check.Once, check.DiagnosticsOnly = true, true
		if got := render(analysis.Analyze(puppet.New(), check, fs)); got != st.want {
			t.Errorf("%s, check:\n got %s want %s", st.what, got, st.want)
		}
	}
	if long.(*puppet.System).Restored == 0 {
		t.Fatal("no run was restored: the test does not reach what it checks")
	}
}
