package cfengine

import (
	"fmt"
	"strings"
	"testing"
)

// cf-promises lexes while it parses, so of a syntax error and a string
// that never ends further down, the first one in the text is the error
// it reports. The places and words are cf-promises 3.21's (`cf-promises
// -c -f`), its column given here as the token's own: cf-promises prints
// the column just past the token's end (`"again"` at 5:5 is its 5:12,
// `perms` at 4:33 its 4:38, a ',' at 4:10 its 4:11), the diagnostic's
// range is the token.
func TestFirstErrorWins(t *testing.T) {
	cases := []struct{ src, want string }{
		// Webhuis/CFEngine-Roadshow: a naked $(d).ip[...] argument, then a
		// stray quote that opens a string running to the file's end
		{"bundle agent main\n{\n  vars:\n    \"x\" slist => filter(\"a\", $(d).ip[support], \"false\", true\", 9);\n  reports:\n    \"$(x)\";\n}\n",
			"4:34 Expected ')', got '.'"},
		{"bundle agent main\n{\n  vars:\n    \"x\" string => concat(\"a\", $(d).x, \"b);\n}\n", "4:35 Expected ')', got '.'"},
		{"bundle agent main(a, b\n{\n  reports:\n    \"x;\n}\n", "2:1 Expected ')', got '{'"},
		{"bundle agent main\n{\n  vars:\n    \"x\" string => \"a\" comment => \"b;\n}\n", "4:23 Check previous line, Expected ',', got 'comment'"},
		// an attribute name right after the promiser begins a constraint:
		// the token after it is wrong (cf-promises 4:22, 4:19, 4:33)
		{"bundle agent main\n{\n  reports:\n    \"abc\" comment \"x\";\n}\n", "4:19 Expected '=>', got '\"x\"'"},
		{"bundle agent main\n{\n  reports:\n    \"abc\" comment;\n}\n", "4:18 Expected '=>', got ';'"},
		{"bundle agent main\n{\n  reports:\n    \"abc\" -> { \"s\" } comment \"x\";\n}\n", "4:30 Expected '=>', got '\"x\"'"},
		// after a comma that follows a constraint (cf-promises 4:37)
		{"bundle agent main\n{\n  reports:\n    \"abc\" comment => \"x\", handle \"h\";\n}\n", "4:34 Expected '=>', got '\"h\"'"},
		// the next promiser, the ';' missing (cf-promises 5:12)
		{"bundle agent main\n{\n  reports:\n    \"hello\" comment => \"x\"\n    \"again\";\n}\n", "5:5 Check previous line, Expected ';', got '\"again\"'"},
		// the runaway string is the first error
		{"bundle agent main\n{\n  vars:\n    \"x\" string => \"abc;\n}\n", "4:19 Runaway string"},
		{"bundle agent main\n{\n  vars:\n    \"x\" slist => { \"a\", \"b };\n}\n", "4:25 Runaway string"},
		{"bundle agent main\n{\n  vars:\n    \"x\" slist => { \"a\", \"b\" }, comment => \"c;\n}\n", "4:43 Runaway string"},
		{"bundle agent main\n{\n  vars:\n    \"x\" string => concat(\"a\", \"b);\n}\n", "4:31 Runaway string"},
		{"bundle agent main\n{\n  reports:\n    \"x\" -> { \"a\", \"b;\n}\n", "4:19 Runaway string"},
		{"body perms p\n{\n  mode => \"644;\n}\n", "3:11 Runaway string"},
		{"body perms p\n{\n  mode => \"644\";\n  owners => { \"a\", \"b };\n}\n", "4:20 Runaway string"},
		{"bundle agent main\n{\n  vars:\n    \"x\" string => \"a\", comment => \"b\", if => \"c;\n}\n", "4:46 Runaway string"},
		{"bundle agent main\n{\n  vars:\n   any::\n    \"x\" string => f(g(\"a\"), \"b);\n}\n", "5:29 Runaway string"},
		{"bundle agent main\n{\n  reports:\n    \"a\n}\n", "4:5 Runaway string"},
		// a constraint without a value: the value is blamed, not its name
		{"bundle agent main\n{\n  vars:\n    \"x\" string => ;\n}\n", "4:19 Invalid r-value type ';'"},
		{"body perms p\n{\n  mode => ;\n}\n", "3:11 Invalid r-value type ';'"},
	}
	for _, c := range cases {
		f := Parse([]byte(c.src))
		if len(f.Errors) == 0 {
			t.Errorf("no error in\n%s", c.src)
			continue
		}
		e := f.Errors[0]
		line := strings.Count(c.src[:e.Span.Start], "\n") + 1
		col := e.Span.Start - strings.LastIndex(c.src[:e.Span.Start], "\n")
		if got := fmt.Sprintf("%d:%d %s", line, col, e.Message); got != c.want {
			t.Errorf("%s\ngot  %s\nwant %s", c.src, got, c.want)
		}
	}
}
