package salt

import (
	"reflect"
	"strings"
	"testing"
)

// What the grammar reads where the hand parser it replaced read
// differently, each checked against jinja2 3.1 (testdata/jinja-oracle.py).

func renderOne(t *testing.T, src string) ([]jnode, []Error) {
	t.Helper()
	return parseJinja([]byte(src))
}

func TestJinjaTestArgumentWithoutParentheses(t *testing.T) {
	// `x is sameas true`: the test takes `true` as its argument (the old
	// parser dropped it and could not decide the condition).
	r := RenderJinja([]byte("{% set v = true %}{% if v is sameas true %}yes{% else %}no{% endif %}"), nil)
	if got := string(r.Text); got != "yes" {
		t.Fatalf("rendered %q, want yes", got)
	}
}

func TestJinjaImportWithContext(t *testing.T) {
	ns, errs := renderOne(t, "{% import_yaml 'a.yml' as data with context %}")
	want := []jnode{jUnknownSet{names: []string{"data"}}}
	if len(errs) != 0 || !reflect.DeepEqual(ns, want) {
		t.Fatalf("got %#v %v, want %#v", ns, errs, want)
	}
}

func TestJinjaDoConditional(t *testing.T) {
	// a `do` that may change what it starts from in a way nobody can
	// follow makes it unknown (jinja2: d.k is 'v' or undefined)
	ns, _ := renderOne(t, "{% do d.pop('k') if x is defined %}")
	if len(ns) != 1 || ns[0].(jDo).root != "d" {
		t.Fatalf("got %#v, want a do on d", ns)
	}
	r := RenderJinja([]byte("{% set d = {'k': 'v'} %}{% do d.pop('k') if x is defined %}{{ d.k }}"), nil)
	if got := string(r.Text); got != Unknown {
		t.Fatalf("rendered %q, want unknown", got)
	}
}

func TestJinjaStarArgumentsAreUnknown(t *testing.T) {
	r := RenderJinja([]byte("{% set xs = ['a'] %}{{ '{0}'.format(*xs) }}"), nil)
	if len(r.Opaque) != 1 {
		t.Fatalf("want the output unknown, got %q opaque %v", r.Text, r.Opaque)
	}
}

func TestJinjaSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ src, msg, at string }{
		{"a\n{% endif %}\n", "Encountered unknown tag 'endif'.", "endif"},
		{"{{ x y }}", "expected token 'end of print statement', got 'y'", "y"},
		{"{% if a = 1 %}x{% endif %}", "unexpected '='", "="},
		{"{{ f(x)) }}", "got ')'", ")"},
		// jinja2: expected token ':', got ',' (a set literal)
		{"{% do f({'a', 1}) %}", "expected token ':', got ','", ","},
		// the same after a method: participle's repetition of postfixes
		// gives the error back at the call's '(', the token scan finds
		// jinja2's place
		{"{% do d.update({'a', 1}) %}", "expected token ':', got ','", ","},
	} {
		_, errs := renderOne(t, c.src)
		if len(errs) != 1 || !strings.Contains(errs[0].Msg, c.msg) || c.src[errs[0].Span.Start:errs[0].Span.End] != c.at {
			t.Errorf("%q: got %v, want one error %q on %q", c.src, errs, c.msg, c.at)
		}
	}
}

func TestJinjaBrokenChunkKeepsTheRest(t *testing.T) {
	src := "a:\n  test.nop\n{{ x y }}\nb:\n  test.nop\n"
	r := RenderJinja([]byte(src), nil)
	if !strings.Contains(string(r.Text), "a:\n  test.nop\n") || !strings.Contains(string(r.Text), "b:\n  test.nop\n") || len(r.Errors) != 1 {
		t.Fatalf("rendered %q, errors %v", r.Text, r.Errors)
	}
}

func TestJinjaUnclosedBlockKeepsItsBody(t *testing.T) {
	src := "{% if x %}\na:\n  test.nop\n"
	r := RenderJinja([]byte(src), nil)
	if !strings.Contains(string(r.Text), "a:\n  test.nop") || len(r.Errors) != 1 ||
		!strings.Contains(r.Errors[0].Msg, "Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.") {
		t.Fatalf("rendered %q, errors %v", r.Text, r.Errors)
	}
}

func TestJinjaUnknownTagPrintsNothing(t *testing.T) {
	r := RenderJinja([]byte("{% profile as 'x' %}a{% endprofile %}"), nil)
	if string(r.Text) != "a" || len(r.Errors) != 0 {
		t.Fatalf("rendered %q, errors %v", r.Text, r.Errors)
	}
}

func TestJinjaNestedTupleTargets(t *testing.T) {
	// jinja2 unpacks `for name, (proto, port) in d.items()` (thusoy/salt-
	// states plex-media-server); it was a syntax error here
	r := RenderJinja([]byte("{% set d = {'web': ('tcp', 80)} %}{% for s, (p, n) in d.items() %}{{ s }}-{{ p }}-{{ n }}{% endfor %}"+
		"{% set (a, (b, c)) = (1, (2, 3)) %}{{ a }}{{ b }}{{ c }}"), nil)
	if got := string(r.Text); got != "web-tcp-80123" || len(r.Errors) > 0 {
		t.Fatalf("rendered %q, errors %v; want web-tcp-80123", got, r.Errors)
	}
}
