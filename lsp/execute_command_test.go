package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// installToy is toy with a Toyfile: each of its lines names a step that
// an installer puts in vendor/NAME.toy. A reference to a step the Toyfile
// declares and nobody installed is a hint with code toy-not-installed,
// which the install job resolves. The installer is this test binary
// (TestToyInstaller), so the server runs a real process.
type installToy struct{ toy }

var stepDecl = regexp.MustCompile(`(?m)^step (\S+)$`)

func (installToy) Analyze(req *analysis.Request) *analysis.Result {
	res := toy{}.Analyze(req)
	steps := map[string]bool{}
	for _, f := range req.Files {
		for _, m := range stepDecl.FindAllSubmatch(f.Text, -1) {
			steps[string(m[1])] = true
		}
	}
	declared := toyfile(req.Workspace)
	var kept []analysis.Diagnostic
	for _, d := range res.Diags {
		if d.Code == "missing-target" {
			f := req.Workspace.Lookup(source.URIToPath(d.At.URI))
			name := string(f.Text[d.At.Start:d.At.End])
			if steps[name] {
				continue // toy files are separate programs; this one sees them all
			}
			if declared[name] {
				d.Severity, d.Code, d.Message = analysis.Hint, "toy-not-installed", d.Message+" (the Toyfile declares it: install it)"
			}
		}
		kept = append(kept, d)
	}
	res.Diags = kept
	return res
}

func toyfile(ws *source.Workspace) map[string]bool {
	out := map[string]bool{}
	for _, r := range ws.Roots() {
		if f := ws.Lookup(filepath.Join(r, "Toyfile")); f != nil {
			for _, n := range strings.Fields(string(f.Text)) {
				out[n] = true
			}
		}
	}
	return out
}

func (installToy) InstallJobs(req *analysis.Request) []analysis.InstallJob {
	var out []analysis.InstallJob
	for _, r := range req.Workspace.Roots() {
		f := req.Workspace.Lookup(filepath.Join(r, "Toyfile"))
		if f == nil {
			continue
		}
		var fills []string
		for _, n := range strings.Fields(string(f.Text)) {
			if _, err := os.Stat(filepath.Join(r, "vendor", n+".toy")); err != nil {
				fills = append(fills, filepath.Join(r, "vendor", n+".toy"))
			}
		}
		if len(fills) == 0 {
			continue
		}
		out = append(out, analysis.InstallJob{Title: "Install the Toyfile", Declares: f.Path, Dir: r,
			Argv: []string{os.Args[0], "-test.run=^TestToyInstaller$"}, Fills: fills, Resolves: []string{"toy-not-installed"}})
	}
	return out
}

// TestToyInstaller is the installer the server runs (in the Toyfile's
// folder, with ORDERING_TOY_INSTALLER=1): it writes vendor/NAME.toy for
// each name, printing a line for each; the name "broken" fails.
func TestToyInstaller(t *testing.T) {
	if os.Getenv("ORDERING_TOY_INSTALLER") != "1" {
		t.Skip("run by the server under test")
	}
	text, err := os.ReadFile("Toyfile")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	_ = os.MkdirAll("vendor", 0o755)
	for _, n := range strings.Fields(string(text)) {
		if n == "broken" {
			fmt.Fprintln(os.Stderr, "cannot fetch broken: no such source")
			os.Exit(1)
		}
		fmt.Printf("fetching %s\n", n)
		if err := os.WriteFile(filepath.Join("vendor", n+".toy"), []byte("step "+n+"\n"), 0o644); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}

// TestInstallCommand: the server advertises ordering.installModules,
// offers it as the quick fix of the hints a job resolves, runs the job
// with work-done progress carrying each line it prints, walks the
// workspace again and republishes: the installed step resolves the hint.
// All of it through the neutral Installer interface.
func TestInstallCommand(t *testing.T) {
	t.Setenv("ORDERING_TOY_INSTALLER", "1")
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Toyfile", "lib\n")
	write("a.toy", "step a\na after lib\n")
	caps := map[string]any{"window": map[string]any{"workDoneProgress": true}}
	c, init := lsptest.Start(t, []analysis.System{installToy{}}, root, caps)
	cmds, _ := init["capabilities"].(map[string]any)["executeCommandProvider"].(map[string]any)["commands"].([]any)
	if !slices.Contains(cmds, any("ordering.installModules")) {
		t.Errorf("executeCommandProvider.commands = %v", cmds)
	}
	uri := source.PathToURI(filepath.Join(root, "a.toy"))
	ds := c.WaitDiagnostics(uri, func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	if ds[0].Code != "toy-not-installed" || ds[0].Severity != 4 {
		t.Fatalf("before install: %+v", ds[0])
	}

	var actions []struct {
		Title, Kind string
		Command     struct {
			Command   string
			Arguments []map[string]string
		}
		Diagnostics []lsptest.Diagnostic
	}
	if err := c.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": ds[0].Range, "context": map[string]any{"diagnostics": []any{}}}, &actions); err != nil {
		t.Fatal(err)
	}
	var install *int
	for i, a := range actions {
		if a.Command.Command == "ordering.installModules" {
			install = &i
		}
	}
	if install == nil {
		t.Fatalf("no install action among %+v", actions)
	}
	a := actions[*install]
	if a.Title != "Install the Toyfile" || a.Kind != "quickfix" || len(a.Diagnostics) != 1 ||
		len(a.Command.Arguments) != 1 || a.Command.Arguments[0]["declares"] != filepath.Join(root, "Toyfile") {
		t.Errorf("install action = %+v", a)
	}

	// Run it as the editor does with the action's command.
	var res struct {
		Message string
		Jobs    []string
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": a.Command.Command, "arguments": a.Command.Arguments}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0] != "Install the Toyfile" {
		t.Errorf("result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "vendor", "lib.toy")); err != nil {
		t.Errorf("not installed: %v", err)
	}
	// The answer comes once the new analysis is published.
	if ds := c.Diagnostics(uri); len(ds) != 0 {
		t.Errorf("after install: %+v", ds)
	}
	msgs := strings.Join(c.ProgressMessages(), "\n")
	for _, want := range []string{"begin: Installing Install the Toyfile", "report: fetching lib", "end: done"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("progress lacks %q:\n%s", want, msgs)
		}
	}

	// Nothing left to install: said, not an error.
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "ordering.installModules"}, &res); err != nil || !strings.HasPrefix(res.Message, "Nothing to install") {
		t.Errorf("second install: %v %+v", err, res)
	}

	// A failing installer: its output is in the error, under the
	// client's own progress token.
	write("Toyfile", "lib\nbroken\n")
	write("b.toy", "step b\nb after broken\n")
	c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{}})
	c.WaitDiagnostics(source.PathToURI(filepath.Join(root, "b.toy")), func(d []lsptest.Diagnostic) bool { return len(d) == 1 })
	err := c.Call("workspace/executeCommand", map[string]any{"command": "ordering.installModules", "workDoneToken": 7}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot fetch broken: no such source") {
		t.Errorf("failing install: %v", err)
	}
	if msgs := c.ProgressMessages(); msgs[len(msgs)-1] != "end: failed" || !slices.Contains(msgs, "report: cannot fetch broken: no such source") {
		t.Errorf("progress under the client's token: %q", msgs)
	}
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "no.such.command"}, nil); err == nil {
		t.Error("unknown command: no error")
	}
}
