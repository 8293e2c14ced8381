package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

var binary string

// TestMain builds the real binary once: the tests below run it as users
// and editors do.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ordering-lsp-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "ordering-lsp")
	// the binary's chunk cache: never the user's cache directory (one
	// given explicitly is kept: TestLatency measures a warm cache so)
	if os.Getenv("ORDERING_CACHE_DIR") == "" {
		os.Setenv("ORDERING_CACHE_DIR", filepath.Join(dir, "cache"))
	}
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

const cycleMsg = "Found 1 dependency cycle: (File[/etc/nginx/nginx.conf] => Service[nginx] => Package[nginx] => File[/etc/nginx/nginx.conf])"

func TestCheckFormats(t *testing.T) {
	root := repoRoot(t)
	out, _, code := runCLI(t, root, "check", "examples/puppet")
	if code != 1 {
		t.Errorf("check with a cycle: exit %d, want 1", code)
	}
	// one problem, on the relationship that closes the cycle (written last)
	want := "examples/puppet/site.pp:17:13: error: " + cycleMsg
	if !strings.Contains(out, want+"\n") {
		t.Errorf("check output lacks %q:\n%s", want, out)
	}

	out, _, _ = runCLI(t, root, "check", "--format", "json", "examples/puppet")
	var diags []struct {
		File, Severity, Message, Source string
		Line, Column                    int
		Related                         []struct{ File string }
	}
	if err := json.Unmarshal([]byte(out), &diags); err != nil {
		t.Fatalf("json output: %v\n%s", err, out)
	}
	if len(diags) != 1 || diags[0].File != "examples/puppet/site.pp" || diags[0].Line != 17 || diags[0].Column != 13 || diags[0].Source != "puppet" || len(diags[0].Related) != 2 {
		t.Errorf("json diagnostics = %+v", diags)
	}

	out, _, _ = runCLI(t, root, "check", "--format", "sarif", "examples/puppet")
	var sarif struct {
		Version string
		Runs    []struct {
			Tool    struct{ Driver struct{ Name string } }
			Results []struct {
				RuleID, Level string
				Locations     []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
				RelatedLocations []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil {
		t.Fatalf("sarif output: %v", err)
	}
	if sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 1 {
		t.Fatalf("sarif = %+v", sarif)
	}
	r := sarif.Runs[0].Results[0]
	loc := r.Locations[0].PhysicalLocation
	if r.Level != "error" || !strings.HasPrefix(r.RuleID, "puppet/") || loc.ArtifactLocation.URI != "examples/puppet/site.pp" || loc.Region.StartLine != 17 || loc.Region.StartColumn != 13 || len(r.RelatedLocations) != 2 {
		t.Errorf("sarif result = %+v", r)
	}

	if _, _, code := runCLI(t, root, "check", "examples/puppet/fixed.pp"); code != 0 {
		t.Errorf("check on a clean manifest: exit %d", code)
	}
}

func TestOrder(t *testing.T) {
	root := repoRoot(t)
	out, errOut, code := runCLI(t, root, "order", "examples/puppet/fixed.pp")
	if code != 0 || out != "Package[nginx]\nFile[/etc/nginx/nginx.conf]\nService[nginx]\n" || errOut != "" {
		t.Errorf("order fixed.pp: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, root, "order", "examples/puppet/site.pp")
	if code != 1 || out != "" || !strings.Contains(errOut, "examples/puppet/site.pp:17:13: error: "+cycleMsg) {
		t.Errorf("order site.pp (cycle): exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestCommandErrors(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"order", "no/such/file.pp"}, 2, "no such file"},
		{[]string{"order", "README.md"}, 2, "no supported system recognises the file"},
		{[]string{"check", "--format", "xml", "examples"}, 2, `unknown format "xml"`},
		{[]string{}, 2, "usage:"},
	} {
		_, errOut, code := runCLI(t, root, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
	if out, _, code := runCLI(t, root, "version"); code != 0 || !strings.HasPrefix(out, "ordering-lsp ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// TestLanguageServerOverStdio drives the real binary as an editor would:
// initialize, didOpen, diagnostics, hover, definition, references,
// didChange fixing the cycle, shutdown and exit.
func TestLanguageServerOverStdio(t *testing.T) {
	ws := t.TempDir()
	site := filepath.Join(ws, "site.pp")
	text, err := os.ReadFile(filepath.Join(repoRoot(t), "examples/puppet/site.pp"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(site, text, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := lsptest.New(t, stdout, stdin)
	defer func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	}()
	var init map[string]any
	if err := c.Call("initialize", map[string]any{"processId": nil, "rootUri": source.PathToURI(ws), "capabilities": map[string]any{}}, &init); err != nil {
		t.Fatal(err)
	}
	c.Notify("initialized", map[string]any{})
	uri := source.PathToURI(site)
	c.Open(uri, "puppet", string(text))
	ds := c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	for _, d := range ds {
		// The server keeps Puppet's two-line message; `check` folds it.
		// One problem, the cycle's two other edges related.
		if d.Message != strings.Replace(cycleMsg, ": (", ":\n(", 1) || len(d.Related) != 2 || d.Severity != 1 {
			t.Errorf("cycle diagnostic: %+v", d)
		}
	}

	// Definition from Package['nginx'] in `require =>`.
	lines := strings.Split(string(text), "\n")
	line := -1
	for i, l := range lines {
		if strings.Contains(l, "require => Package") {
			line = i
		}
	}
	col := strings.Index(lines[line], "Package['nginx']") + len("Package['")
	var locs []lsptest.Location
	if err := c.Call("textDocument/definition", lsptest.Pos(uri, line, col), &locs); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || locs[0].Range.Start.Line != 4 {
		t.Errorf("definition of Package['nginx'] = %+v, want the declaration on line 4", locs)
	}

	// References of the package, from its declaration.
	var refs []lsptest.Location
	p := lsptest.Pos(uri, 4, 12)
	p["context"] = map[string]any{"includeDeclaration": false}
	if err := c.Call("textDocument/references", p, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 {
		t.Errorf("references of Package[nginx] = %+v, want the require and the before", refs)
	}

	// Fix the cycle: delete the `before => Package['nginx'],` line.
	bl := -1
	for i, l := range lines {
		if strings.Contains(l, "before => Package") {
			bl = i
		}
	}
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: bl}, End: lsptest.Position{Line: bl + 1}}, "")
	c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 0 })

	var hover struct{ Contents struct{ Value string } }
	if err := c.Call("textDocument/hover", lsptest.Pos(uri, 13, 12), &hover); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Service\\[nginx\\]**", "Runs **3rd of 3**", "Refreshed by:", "`File[/etc/nginx/nginx.conf]` — notify"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}

	if err := c.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("exit", nil)
	if err := cmd.Wait(); err != nil {
		t.Errorf("server exit after shutdown: %v", err)
	}
}

// Salt runs on despite a missing requisite (only the state that needs it
// fails): `order` prints the order and still exits 1 for CI.
func TestOrderPrintsRunsWithErrors(t *testing.T) {
	dir := t.TempDir()
	sls := "a:\n  test.succeed_without_changes:\n    - require:\n      - test: does_not_exist\nb:\n  test.succeed_without_changes\n"
	if err := os.WriteFile(filepath.Join(dir, "missing_req.sls"), []byte(sls), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, dir, "order", "missing_req.sls")
	if code != 1 || out != "test.succeed_without_changes a a\ntest.succeed_without_changes b b\n" ||
		!strings.Contains(errOut, "missing_req.sls:4:9: error: The following requisites were not found:") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestCheckRepoLookupWithoutData: `check .` in a repository whose Hiera
// data lives elsewhere reads a lookup() of a key nobody sets as unknown,
// as the language server does (fixture shared with analysis/puppet).
func TestCheckRepoLookupWithoutData(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "analysis", "puppet", "testdata", "lookup_unknown.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	analysistest.WriteInputs(t, dir, ar)
	out, errOut, code := runCLI(t, dir, "check", ".")
	if code != 0 || strings.Contains(out, "Duplicate") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestFactsFlag: --facts FILE decides fact-dependent branches (the order
// of that node), in check as in order.
func TestFactsFlag(t *testing.T) {
	dir := t.TempDir()
	pp := "if $facts['os']['family'] == 'Debian' { notify { 'deb': } } else { notify { 'other': } }\nnotify { 'always': }\n"
	os.WriteFile(filepath.Join(dir, "site.pp"), []byte(pp), 0o644)
	os.WriteFile(filepath.Join(dir, "node.json"), []byte(`{"os": {"family": "Debian"}}`), 0o644)
	out, errOut, code := runCLI(t, dir, "order", "--facts", "node.json", "site.pp")
	if code != 0 || out != "Notify[deb]\nNotify[always]\n" {
		t.Errorf("with facts: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, _, _ = runCLI(t, dir, "order", "site.pp")
	if out != "Notify[deb]\nNotify[other]\nNotify[always]\n" {
		t.Errorf("without facts both branches are shown, got:\n%s", out)
	}
	out, errOut, code = runCLI(t, dir, "check", "--facts", "node.json", "site.pp")
	if code != 0 || out != "no problems in 1 file\n" {
		t.Errorf("check --facts: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestExamples: `check` on examples/ prints examples/check.golden, which
// the README quotes (ORDERING_UPDATE_GOLDEN=1 rewrites it). Every system
// has an example there with its order and its typical problems.
func TestExamples(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "examples")
	out, errOut, code := runCLI(t, root, "check", "examples/")
	if code != 1 {
		t.Errorf("check examples/: exit %d, want 1 (the examples have errors); stderr %q", code, errOut)
	}
	golden := filepath.Join(dir, "check.golden")
	if os.Getenv("ORDERING_UPDATE_GOLDEN") != "" {
		os.WriteFile(golden, []byte(out), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("check examples/ differs from examples/check.golden\n--- got\n%s--- want\n%s", out, want)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```\n"+string(want)+"```\n") {
		t.Errorf("README.md does not quote examples/check.golden as it is")
	}
	for _, sys := range []string{"puppet/", "salt/", "cfengine/", "chef/", "rudder/"} {
		if !strings.Contains(out, "examples/"+sys) {
			t.Errorf("no diagnostic from the %s example", sys)
		}
	}
}
