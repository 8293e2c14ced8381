package salt

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
)

// TestArmsText: the conditions a message names, as a reader takes them.
// UtahDave/salt-states hadoop-hdfs-datanode/init.sls writes a requisite
// under `{% if devs|length > 1 %}{% for dev in devs %}{% if dev %}` and an
// if over two lines whose condition is an `or`: joined with " and ", that
// condition needs its brackets, and its line break is one space.
func TestArmsText(t *testing.T) {
	arms := func(texts ...string) []analysis.Branch {
		var out []analysis.Branch
		for i, x := range texts {
			out = append(out, arm{a: sp.Arm{Point: int32(i + 1), Text: x}})
		}
		return out
	}
	cases := []struct {
		texts []string
		want  string
	}{
		{[]string{"devs|length > 1", "devs has items", "minions['cm4']\n         or minions['cm5']"},
			"devs|length > 1 and devs has items and (minions['cm4'] or minions['cm5'])"},
		{[]string{"a or b"}, "a or b"}, // alone: nothing to bind tighter
		{[]string{"x", "f(a or b)", "'a or b' in y", "[a or b]"}, "x and f(a or b) and 'a or b' in y and [a or b]"},
		{[]string{"x", "x"}, "x"},
		{[]string{"not (a or b)", "c"}, "not (a or b) and c"},
	}
	for _, c := range cases {
		if got := armsText(arms(c.texts...)); got != c.want {
			t.Errorf("armsText(%q) = %q, want %q", c.texts, got, c.want)
		}
	}
}
