package chef

import (
	"strings"
	"testing"
)

// TestPathological feeds inputs built to trip a backtracking parser.
func TestPathological(t *testing.T) {
	for name, src := range map[string]string{
		"deep-array":  "run_list " + strings.Repeat("[", 3000) + strings.Repeat("]", 3000),
		"deep-open":   "run_list " + strings.Repeat("[", 3000),
		"deep-hash":   "default['a'] = " + strings.Repeat("{ 'a' => ", 500) + "1" + strings.Repeat(" }", 500),
		"deep-paren":  "run_list " + strings.Repeat("(", 2000) + "'a'" + strings.Repeat(")", 2000),
		"long-list":   "run_list " + strings.Repeat("'a', ", 20000) + "'b'",
		"long-ops":    "run_list " + strings.Repeat("a + ", 20000) + "b",
		"deep-call":   "run_list " + strings.Repeat("f(", 2000) + strings.Repeat(")", 2000),
		"many-stmts":  strings.Repeat("cookbook 'x', path: 'y'\n", 20000),
		"deep-do":     strings.Repeat("x do\n", 3000) + strings.Repeat("end\n", 3000),
		"index-chain": "default" + strings.Repeat("['a']", 5000) + " = 1",
		"unary":       "run_list " + strings.Repeat("!", 5000) + "a",
		"bad-pairs":   "cookbook " + strings.Repeat("'a' => 'b' => ", 2000),
	} {
		// A hang here (exponential backtracking, unbounded recursion) is
		// caught by the test timeout; nothing is timed.
		t.Log(name)
		f := NewParser().Parse([]byte(src))
		checkSpans(t, []byte(src), f, Read([]byte(src), f))
	}
}
