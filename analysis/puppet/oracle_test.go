package puppet_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// knownGaps are oracle cases whose truth we do not reproduce yet, with why.
// Every other case in testdata/oracle must agree exactly.
var knownGaps = map[string]string{}

// TestOracle runs every testdata/oracle/NAME.pp (recorded with the real
// Puppet 7 by /work/shared/oracle/puppet-order) as `puppet apply NAME.pp`
// would, and compares with NAME.order: the same resources in the same
// order, or, for error cases, a refused run with Puppet's messages.
func TestOracle(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "oracle", "*.pp"))
	if len(cases) == 0 {
		t.Fatal("no oracle cases")
	}
	sort.Strings(cases)
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".pp")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(c, ".pp") + ".order")
			if err != nil || len(want) == 0 {
				t.Skip("no .order file yet")
			}
			if why, ok := knownGaps[name]; ok {
				t.Skip("known gap: " + why)
			}
			run, diags := orderOf(t, c)
			checkOracle(t, string(want), run, diags)
		})
	}
}

func orderOf(t testing.TB, path string) (*analysis.Run, []analysis.Diagnostic) {
	dir := t.TempDir()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	// The cases were recorded with `puppet apply --certname puppet-order`:
	// named, as there, so our messages hold Puppet's exact words ("Could
	// not find class ::x for puppet-order"), which checkOracle compares.
	run, diags := analyseEntry(dir, p, analysis.Settings{"puppet.certname": "puppet-order"})
	if run == nil {
		t.Fatalf("no run for %s; diags: %v", path, diags)
	}
	return run, diags
}

var (
	reFileLine = regexp.MustCompile(` \(file: [^)]*, line: \d+, column: \d+\)`)
	reOnNode   = regexp.MustCompile(` on node \S+$`)
	rePrefix   = regexp.MustCompile(`^(Error: )?(Evaluation Error: Error while evaluating a [A-Za-z ]+, |Evaluation Error: |Could not parse for environment \w+: )?`)
	reFileAt   = regexp.MustCompile(` \(file: [^)]*, line: \d+\)$`)
	reDup      = regexp.MustCompile(`^Duplicate declaration: .*?; cannot redeclare \(file: [^)]*, line: \d+\)`)
)

// essence strips what only a real compile adds (absolute positions of
// the error, the node name) from one of Puppet's error lines.
func essence(line string) string {
	s := strings.TrimPrefix(line, "ERROR: ")
	for {
		t := rePrefix.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	s = reOnNode.ReplaceAllString(s, "")
	s = reFileLine.ReplaceAllString(s, "")
	if i := strings.Index(s, `\nTry the '--graph'`); i >= 0 {
		s = s[:i]
	}
	if strings.Contains(s, "Could not find resource") || strings.Contains(s, "Could not find dependency") {
		s = reFileAt.ReplaceAllString(s, "")
	}
	if m := reDup.FindString(s); m != "" {
		s = m
	}
	return strings.TrimSpace(s)
}

func checkOracle(t *testing.T, want string, run *analysis.Run, diags []analysis.Diagnostic) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(want, "\n"), "\n")
	var got []string
	for _, s := range run.Steps {
		got = append(got, s.Label)
	}
	var msgs []string
	for _, d := range diags {
		if d.Severity == analysis.Error {
			msgs = append(msgs, d.Message)
		}
	}
	if len(lines) > 0 && strings.HasPrefix(lines[0], "ERROR:") {
		if !run.Refused {
			t.Errorf("puppet refuses this manifest; we did not (diagnostics: %q)", msgs)
		}
		all := strings.Join(msgs, "\n")
		for _, l := range lines {
			for _, e := range strings.Split(essence(l), `\n`) {
				// (Puppet's count of what its validator logged: a summary)
				if e == "" || strings.HasPrefix(e, "Failed to apply catalog") || strings.HasPrefix(e, "Language validation logged ") {
					continue
				}
				if !strings.Contains(all, e) {
					t.Errorf("missing Puppet's error %q\n got: %q", e, msgs)
				}
			}
		}
		return
	}
	if run.Refused {
		t.Errorf("we refuse a manifest puppet applies: %q", msgs)
	}
	if strings.Join(got, "\n") != strings.Join(lines, "\n") {
		t.Errorf("order mismatch\n--- puppet\n%s\n--- ours\n%s", strings.Join(lines, "\n"), strings.Join(got, "\n"))
	}
}
