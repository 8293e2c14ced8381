package cfengine

import (
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// The 4th-pass warning sits on the guard and links the chain of promises
// whose classes lead to it, latest first (testdata/oracle/passes.cf:
// cf-agent never evaluates the users promise).
func TestFourthPassChain(t *testing.T) {
	for _, tc := range []struct {
		file, guard string
		chain       []string
	}{
		{"testdata/oracle/passes.cf", "s3", []string{
			`files: "$(sys.workdir)/sandbox/pass-3" sets class 's3' in pass 3`,
			`commands: "/bin/echo pass 2" sets class 's2' in pass 2`,
			`reports: "start" sets class 's1' in pass 1`,
		}},
		{"testdata/oracle/fourth_pass.cf", "s3", []string{
			`reports: "helper sets s3" sets class 's3' in pass 1 of bundle 'helper'`,
			`methods: "call" calls bundle 'helper' in pass 3`,
			`commands: "/bin/echo pass 2" sets class 's2' in pass 2`,
			`reports: "pass 1 sets s1" sets class 's1' in pass 1`,
		}},
	} {
		res, ws := analyzeFile(t, tc.file)
		found := 0
		for _, d := range res.Diags {
			if !strings.Contains(d.Message, "at most 3 passes") {
				continue
			}
			found++
			f := analysis.FileOf(ws, d.At.URI)
			if got := string(f.Text[d.At.Start:d.At.End]); got != tc.guard {
				t.Errorf("%s: warning on %q, want it on the guard %q", tc.file, got, tc.guard)
			}
			var got []string
			for _, r := range d.Related {
				got = append(got, r.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tc.chain, "\n") {
				t.Errorf("%s: chain\n%s\nwant\n%s", tc.file, strings.Join(got, "\n"), strings.Join(tc.chain, "\n"))
			}
		}
		if found == 0 {
			t.Errorf("%s: no 4th-pass warning", tc.file)
		}
	}
}
