package puppet

import (
	"fmt"
	"strings"
	"testing"
)

// TestStatementsWithoutEffect: what Puppet 7.23 refuses for having no
// effect, in its words and at its line and column (each case run through
// `puppet apply` when it was written), and what it accepts.
func TestStatementsWithoutEffect(t *testing.T) {
	const notLast = "has no effect. A value was produced and then forgotten (one or more preceding expressions may have the wrong form)"
	const classLast = "has no effect. A Host Class Definition can not end with a value-producing expression without other effect"
	inClass := func(s string) string { return "class foo {\n  notify { 'z': }\n  " + s + "\n}\n" }
	inClassFirst := func(s string) string { return "class foo {\n  " + s + "\n  notify { 'z': }\n}\n" }
	cases := []struct {
		src  string
		want string // "line:col message", "" when Puppet accepts it
	}{
		{inClass("notif"), "3:3 This Name " + classLast},
		{"class foo {\n  notify { 'z': }\n  notif\n  notify { 'y': }\n}\n", "3:3 This Name " + notLast},
		{"define foo() {\n  notify { 'z': }\n  notif\n}\n", "3:3 This Name has no effect. A 'define' expression can not end with a value-producing expression without other effect"},
		{"node default {\n  notify { 'z': }\n  notif\n}\n", "3:3 This Name has no effect. A Node Definition can not end with a value-producing expression without other effect"},
		{inClass("notify { }"), "3:3 This expression is invalid. Did you try declaring a 'notify' resource without a title?"},
		{inClassFirst("notify { }"), "2:3 This expression is invalid. Did you try declaring a 'notify' resource without a title?"},
		{"notify { }\n", "1:1 This expression is invalid. Did you try declaring a 'notify' resource without a title?"},
		{inClass("@notify { }"), "3:3 Virtual (@) can only be applied to a Resource Expression"},
		{inClass("if $facts['x'] { }"), "3:3 This 'if' statement " + classLast},
		{inClassFirst("if $facts['x'] { }"), "2:3 This 'if' statement " + notLast},
		{inClass("unless $x { 3 }"), "3:3 This 'unless' Statement " + classLast},
		{inClassFirst("case $x { default: {} }"), "2:3 This 'case' statement " + notLast},
		{inClass("case $x { default: {} }"), "3:3 This 'case' statement " + classLast},
		{inClass("$x ? { default => 1 }"), "3:3 This Selector Expression " + classLast},
		{inClass(`"${x}"`), "3:3 This Double Quoted String " + classLast},
		{inClass("$x"), "3:3 This Variable " + classLast},
		{inClass("File"), "3:3 This Type-Name " + classLast},
		{inClassFirst("-1"), "2:3 This Unary Minus " + notLast},
		{inClassFirst("*$x"), "2:3 This Unfold " + notLast},
		{inClass("($x)"), "3:3 This Parenthesized Expression " + classLast},
		{inClass(`Notify["z"]`), "3:3 This '[]' expression " + classLast},
		{inClass("$x == 1"), "3:6 This '==' expression " + classLast},
		{inClass("/x/"), "3:3 This Regular Expression " + classLast},
		{inClass("0x1F"), "3:3 This Literal Integer " + classLast},
		{inClass("1e3"), "3:3 This Literal Float " + classLast},
		{inClass("[]"), "3:3 This Array Expression " + classLast},
		{inClass("@(EOT)\n  x\n  EOT"), "3:3 This '@()' expression " + classLast},
		{"\"str\"\nnotify { 'z': }\n", "1:1 This String " + notLast},
		{"if true {\n  notify { 'z': }\n  3\n  notify { 'y': }\n}\n", "3:3 This Literal Integer " + notLast},
		{"class foo {\n  [1].each |$x| { 3\n notice(1) }\n}\n", "2:19 This Literal Integer " + notLast},
		{"function foo::bar() { 3\n 4 }\n", "1:23 This Literal Integer " + notLast},
		// `and` is a binary expression, which Puppet takes as idem
		// whatever its operands call
		{inClassFirst("if $p =~ /^8/ and f($p) { }"), "2:3 This 'if' statement " + notLast},

		{"notify { 'z': }\n\"str\"\n", ""},
		{inClassFirst("if $x { 3 } else { notice(1) }"), ""},
		{inClass("$x = 1"), ""},
		{inClass("$x =~ /a/"), ""},
		{inClass("Notify['z'] -> Notify['y']"), ""},
		{inClass("Package <| |>"), ""},
		{inClass("include bar"), ""},
		{inClass("$x.each |$y| { }"), ""},
		{"class foo { }\n", ""},
		{"function foo::bar() { 3 }\n", ""},
		{"$x = [1].map |$y| { $y + 1 }\n", ""},
	}
	for _, c := range cases {
		f := Parse([]byte(c.src))
		got := ""
		if len(f.Errors) > 0 {
			e := f.Errors[0]
			line := 1 + strings.Count(c.src[:e.Pos], "\n")
			col := e.Pos - strings.LastIndexByte(c.src[:e.Pos], '\n')
			got = fmt.Sprintf("%d:%d %s", line, col, e.Msg)
		}
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestStatementWithoutEffectDropped: while a resource is typed into a
// class (`n`, `notify`, `notify {}`), the class reads as it did before the
// statement was begun, with the error: what follows a keystroke without
// an analysis (analysis/puppet follow.go) relies on it.
func TestStatementWithoutEffectDropped(t *testing.T) {
	before := "class foo {\n  notify { 'a': }\n  notify { 'b': }\n}\n"
	for _, typed := range []string{"n", "notify", "notify {}", "notify { }", "$x", "'s'", "if $x {}", "File"} {
		for _, at := range []string{"  notify { 'a': }\n", "  notify { 'b': }\n"} { // between, and last
			src := strings.Replace(before, at, at+"  "+typed+"\n", 1)
			f := Parse([]byte(src))
			if len(f.Errors) != 1 {
				t.Errorf("%q: %d errors %v, want 1", src, len(f.Errors), f.Errors)
				continue
			}
			c, ok := f.Stmts[0].(*ClassDef)
			if len(f.Stmts) != 1 || !ok {
				t.Errorf("%q: statements %v, want the class", src, f.Stmts)
				continue
			}
			var titles []string
			for _, s := range c.Body {
				if r, ok := s.(*Resource); ok && len(r.Bodies) == 1 {
					if st, ok := r.Bodies[0].Title.(*Str); ok {
						titles = append(titles, st.Value)
						continue
					}
				}
				titles = append(titles, fmt.Sprintf("%T", s))
			}
			if strings.Join(titles, ",") != "a,b" {
				t.Errorf("%q: the class holds %v, want a,b", src, titles)
			}
		}
	}
}
