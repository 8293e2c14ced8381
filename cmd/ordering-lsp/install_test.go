package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// controlRepo makes a control repository whose Puppetfile declares one
// module, foo, from a git repository in a temporary folder (nothing
// reaches the network): role::web includes foo and orders its notify
// after foo's; role::broken includes a class foo does not define.
// HOME and XDG_CACHE_HOME point into the test's folder (r10k's cache is
// ~/.r10k, g10k's the user cache folder).
func controlRepo(t *testing.T) (root, src string) {
	t.Helper()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "cache"))
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src = filepath.Join(base, "src", "foo")
	write(filepath.Join(src, "manifests", "init.pp"), "class foo {\n  notify { 'foo': }\n}\n")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "foo"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	root = filepath.Join(base, "control")
	write(filepath.Join(root, "Puppetfile"), "mod 'foo',\n  :git    => '"+src+"',\n  :branch => 'main'\n")
	write(filepath.Join(root, "environment.conf"), "modulepath = site-modules:modules:$basemodulepath\n")
	write(filepath.Join(root, "manifests", "site.pp"), "include role::web\n")
	write(filepath.Join(root, "site-modules", "role", "manifests", "web.pp"),
		"class role::web {\n  include foo\n  notify { 'web': require => Notify['foo'] }\n}\n")
	write(filepath.Join(root, "site-modules", "role", "manifests", "broken.pp"),
		"class role::broken {\n  include foo::missing\n}\n")
	return root, src
}

func needInstaller(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"r10k", "g10k"} {
		if _, err := exec.LookPath(name); err == nil {
			return name
		}
	}
	t.Skip("neither r10k nor g10k is on PATH (scripts/test-all installs r10k)")
	return ""
}

type checkJSON struct {
	File, Severity, Code, Message string
	Line, Column                  int
}

func checkDiags(t *testing.T, root string) []checkJSON {
	t.Helper()
	out, errOut, _ := runCLI(t, root, "check", "--format", "json", ".")
	var ds []checkJSON
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("check --format json: %v\n%s\n%s", err, out, errOut)
	}
	return ds
}

func render(ds []checkJSON) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.File+":"+itoa(d.Line)+":"+itoa(d.Column)+": "+d.Severity+" "+d.Code)
	}
	return strings.Join(s, "\n")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestInstallModulesCLI: before the install, foo's classes are hints
// with code module-not-installed; `check --install-modules` installs the
// Puppetfile with r10k (g10k when only it is there), saying so on stderr,
// and then analyses foo like any module: no hint, its notify is ordered,
// and a class it does not define is reported (a warning: nothing in the
// workspace declares role::broken, whose include it is).
func TestInstallModulesCLI(t *testing.T) {
	tool := needInstaller(t)
	root, _ := controlRepo(t)
	before := render(checkDiags(t, root))
	want := "site-modules/role/manifests/broken.pp:2:11: hint module-not-installed\n" +
		"site-modules/role/manifests/web.pp:2:11: hint module-not-installed\n" +
		"site-modules/role/manifests/web.pp:3:30: hint missing-target"
	if before != want {
		t.Errorf("before install:\n%s\nwant\n%s", before, want)
	}

	out, errOut, code := runCLI(t, root, "check", "--install-modules", ".")
	if code != 0 {
		t.Errorf("check --install-modules: exit %d, want 0 (foo::missing is a warning: nothing declares role::broken)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, w := range []string{"ordering-lsp: Install the module Puppetfile declares with " + tool + ": ", "ordering-lsp: installed modules/foo\n"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "modules", "foo", "manifests", "init.pp")); err != nil {
		t.Fatalf("foo not installed: %v", err)
	}
	if !strings.HasPrefix(out, "site-modules/role/manifests/broken.pp:2:11: warning: Could not find class ::foo::missing (only where Class[Role::Broken] is declared: nothing in the workspace declares it)\n") {
		t.Errorf("after install, stdout:\n%s", out)
	}
	if after := render(checkDiags(t, root)); after != "site-modules/role/manifests/broken.pp:2:11: warning unknown-class" {
		t.Errorf("after install:\n%s", after)
	}
	if out, errOut, code := runCLI(t, root, "order", "manifests/site.pp"); code != 0 || out != "Notify[foo]\nNotify[web]\n" {
		t.Errorf("order: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, _ := runCLI(t, root, "graph", "--install-modules", "."); !strings.Contains(errOut, "nothing to install") {
		t.Errorf("graph --install-modules once installed: %s", errOut)
	}
}

// TestInstallModulesFallbacks: g10k when r10k is not on PATH; a clear
// error, and no analysis, when neither is.
func TestInstallModulesFallbacks(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	root, _ := controlRepo(t)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gitPath, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	out, errOut, code := runCLI(t, root, "check", "--install-modules", ".")
	if code != 2 || out != "" || !strings.Contains(errOut, "ordering-lsp: cannot install the module Puppetfile declares: neither r10k nor g10k is on PATH (Debian: `apt-get install r10k`)\n") {
		t.Errorf("no installer: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	g10k, err := exec.LookPath("/usr/bin/g10k")
	if err != nil {
		t.Skip("no g10k")
	}
	if err := os.Symlink(g10k, filepath.Join(bin, "g10k")); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI(t, root, "order", "--install-modules", "manifests/site.pp")
	if code != 0 || !strings.Contains(errOut, "Install the module Puppetfile declares with g10k") {
		t.Errorf("g10k: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "modules", "foo", "manifests", "init.pp")); err != nil {
		t.Errorf("g10k did not install foo: %v", err)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "g10k")); err != nil {
		t.Errorf("g10k's cache is not in the user cache folder: %v", err)
	}
}

// TestInstallModulesServer drives the real server over stdio: the hint
// offers the install as a quick fix, workspace/executeCommand runs it
// with work-done progress carrying the installer's lines, and the
// diagnostics are published again without the hint, with foo analysed.
func TestInstallModulesServer(t *testing.T) {
	needInstaller(t)
	root, _ := controlRepo(t)
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
	defer cmd.Process.Kill()
	c := lsptest.New(t, stdout, stdin)
	defer func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	}()
	var init struct {
		Capabilities struct {
			ExecuteCommandProvider struct{ Commands []string }
		}
	}
	caps := map[string]any{"window": map[string]any{"workDoneProgress": true}}
	if err := c.Call("initialize", map[string]any{"processId": nil, "rootUri": source.PathToURI(root), "capabilities": caps}, &init); err != nil {
		t.Fatal(err)
	}
	// the install command, the node picker's list (lsp/ordering_nodes.go) and the
	// "all nodes" view as a command (lsp/ordering_node_matrix.go)
	if got := init.Capabilities.ExecuteCommandProvider.Commands; strings.Join(got, " ") != "ordering.installModules ordering.nodes ordering.nodeMatrix" {
		t.Errorf("executeCommandProvider.commands = %v", got)
	}
	c.Notify("initialized", map[string]any{})
	web := source.PathToURI(filepath.Join(root, "site-modules", "role", "manifests", "web.pp"))
	broken := source.PathToURI(filepath.Join(root, "site-modules", "role", "manifests", "broken.pp"))
	ds := c.WaitDiagnostics(web, func(d []lsptest.Diagnostic) bool { return len(d) == 2 })
	var hint *lsptest.Diagnostic
	for i := range ds {
		if ds[i].Code == "module-not-installed" {
			hint = &ds[i]
		}
	}
	if hint == nil || hint.Severity != 4 || hint.Range.Start != (lsptest.Position{Line: 1, Character: 10}) {
		t.Fatalf("before install: %+v", ds)
	}

	var actions []struct {
		Title   string
		Kind    string
		Command *struct {
			Command   string
			Arguments []json.RawMessage
		}
	}
	if err := c.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": web},
		"range": hint.Range, "context": map[string]any{"diagnostics": []any{}}}, &actions); err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	for _, a := range actions {
		if a.Command != nil && a.Command.Command == "ordering.installModules" && a.Kind == "quickfix" && strings.HasPrefix(a.Title, "Install the module Puppetfile declares with ") {
			run = map[string]any{"command": a.Command.Command, "arguments": a.Command.Arguments}
		}
	}
	if run == nil {
		t.Fatalf("no install quick fix among %+v", actions)
	}
	var res struct {
		Message string
		Fills   []string
	}
	if err := c.Call("workspace/executeCommand", run, &res); err != nil {
		t.Fatal(err)
	}
	if res.Message != "Installed modules/foo" {
		t.Errorf("executeCommand = %+v", res)
	}
	msgs := c.ProgressMessages()
	joined := strings.Join(msgs, "\n")
	if !strings.HasPrefix(joined, "begin: Installing Install the module Puppetfile declares with ") || !strings.Contains(joined, "modules/foo") || !strings.Contains(joined, "end: done") {
		t.Errorf("progress:\n%s", joined)
	}
	// The answer comes after the new analysis is published.
	if ds := c.Diagnostics(web); len(ds) != 0 {
		t.Errorf("web.pp after install: %+v", ds)
	}
	if ds := c.Diagnostics(broken); len(ds) != 1 || ds[0].Severity != 2 || ds[0].Code != "unknown-class" {
		t.Errorf("broken.pp after install: %+v", ds)
	}
	var order struct {
		Runs []struct {
			Steps []struct{ Label string }
		}
	}
	if err := c.Call("ordering/order", map[string]any{"uri": source.PathToURI(filepath.Join(root, "manifests", "site.pp"))}, &order); err != nil {
		t.Fatal(err)
	}
	var labels []string
	if len(order.Runs) > 0 {
		for _, s := range order.Runs[0].Steps {
			labels = append(labels, s.Label)
		}
	}
	if strings.Join(labels, " ") != "Notify[foo] Notify[web]" {
		t.Errorf("order of site.pp after install: %v", labels)
	}
	if err := c.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Notify("exit", nil)
	if err := cmd.Wait(); err != nil {
		t.Errorf("server exit after shutdown: %v", err)
	}
}
