package cfengine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The oracle cases (testdata/oracle, copied from shared/oracle/cases/
// cfengine; truth from the real cf-agent 3.21 via cfengine-order): the
// static schedule must print the oracle's .order lines (outcome stripped),
// and a case the real tool refuses must give the same error, on the same
// line.

var outcomeRe = regexp.MustCompile(` outcome=\S+$`)

// oracleLimits lists oracle lines a static analysis cannot reproduce, per
// case, with the reason. Empty today.
var oracleLimits = map[string]string{}

// ignoredErrors are oracle error lines that only summarise others.
var ignoredErrors = []string{
	"There are syntax errors in policy files",
	"Fatal CFEngine error",
	"syntax error",
	"was undeclared, but used in a promise",
}

func analyzeFile(t *testing.T, path string) (*analysis.Result, *source.Workspace) {
	t.Helper()
	abs, _ := filepath.Abs(path)
	dir := t.TempDir()
	dst := filepath.Join(dir, filepath.Base(abs))
	data, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ws := source.NewWorkspace(dir)
	sys := New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: source.PathToURI(dst), Settings: analysis.Settings{}}
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	return analysis.Analyze(sys, in, files), ws
}

func TestOracleCases(t *testing.T) {
	cases, _ := filepath.Glob("testdata/oracle/*.cf")
	if len(cases) == 0 {
		t.Fatal("no oracle cases")
	}
	for _, cf := range cases {
		name := strings.TrimSuffix(filepath.Base(cf), ".cf")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(cf, ".cf") + ".order")
			if err != nil {
				t.Skip("no .order")
			}
			res, ws := analyzeFile(t, cf)
			var wantSteps, wantErrs []string
			for _, l := range strings.Split(strings.TrimRight(string(want), "\n"), "\n") {
				if e, ok := strings.CutPrefix(l, "ERROR: "); ok {
					wantErrs = append(wantErrs, e)
					continue
				}
				wantSteps = append(wantSteps, outcomeRe.ReplaceAllString(l, ""))
			}
			if len(wantErrs) > 0 {
				checkErrors(t, res, ws, wantErrs)
				return
			}
			// errors cf-agent reports while the run goes on are in the
			// case's .stderr (the oracle prints them there)
			stderr, _ := os.ReadFile(strings.TrimSuffix(cf, ".cf") + ".stderr")
			for _, d := range res.Diags {
				if d.Severity == analysis.Error && !strings.Contains(string(stderr), "error: "+d.Message) {
					t.Errorf("unexpected error: %s", analysis.CheckLine(ws, "", d))
				}
			}
			var got []string
			if len(res.Runs) > 0 {
				for _, st := range res.Runs[0].Steps {
					got = append(got, st.Label)
				}
			}
			if strings.Join(got, "\n") != strings.Join(wantSteps, "\n") {
				t.Errorf("order differs from cf-agent\n--- cf-agent\n%s\n--- static\n%s", strings.Join(wantSteps, "\n"), strings.Join(got, "\n"))
			}
		})
	}
}

var errPos = regexp.MustCompile(`^[^:]+\.cf:(\d+):\d+: error: (.*)$`)

func checkErrors(t *testing.T, res *analysis.Result, ws *source.Workspace, wantErrs []string) {
	t.Helper()
	var got []string
	for _, d := range res.Diags {
		if d.Severity == analysis.Error {
			got = append(got, analysis.CheckLine(ws, "", d))
		}
	}
	for _, e := range wantErrs {
		skip := false
		for _, ig := range ignoredErrors {
			if strings.Contains(e, ig) && !strings.Contains(e, "Expected") {
				skip = true
			}
		}
		if skip || e == "syntax error" {
			continue
		}
		line, msg := "", e
		if m := errPos.FindStringSubmatch(e); m != nil {
			line, msg = m[1], m[2]
			if msg == "syntax error" {
				continue
			}
		}
		found := false
		for _, g := range got {
			if strings.HasSuffix(g, "error: "+msg) && (line == "" || strings.Contains(g, ":"+line+":")) {
				found = true
			}
		}
		if !found {
			t.Errorf("cf-promises says %q (line %s); we said:\n%s", msg, line, strings.Join(got, "\n"))
		}
	}
}
