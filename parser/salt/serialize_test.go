package salt

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The yaml, json and indent filters, and `do` on lists, as Salt renders
// them: every expectation below is the output of Salt 3007 from source
// (salt-call --local slsutil.renderer string=... default_renderer=jinja,
// which dumps with libyaml's CSafeDumper).
func TestSerializeFilters(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"{%- set l = ['a.b', 'yes', 1, 'x: y'] %}{%- do l.append('c') %}{{ l|yaml(false) }}|{{ l|yaml }}|{{ l|json }}|{{ {'b': 1, 'a': [1,2]}|yaml }}",
			"- a.b\n- 'yes'\n- 1\n- 'x: y'\n- c|[a.b, 'yes', 1, 'x: y', c]|[\"a.b\", \"yes\", 1, \"x: y\", \"c\"]|{a: [1, 2], b: 1}"},
		{"{%- set includes = [] %}{%- do includes.append('postgres.server.image') %}{%- do includes.extend(['postgres.upstream']) %}include:\n  {{ includes|yaml(false)|indent(2) }}",
			"include:\n  - postgres.server.image\n  - postgres.upstream"},
		{"{%- set d = {'k': {'b': [1, {'c': 'd'}], 'a': none, 't': true, 'e': '', 'f': 1.5}} %}{{ d|yaml(false) }}",
			"k:\n  a: null\n  b:\n  - 1\n  - c: d\n  e: ''\n  f: 1.5\n  t: true"},
		{"{{ ['a b', ' x', \"it's\", 'say \"hi\"', '#c', 'a #c', 'a: b', '-', '- x', '~', 'null', '0x1F', '1.0', '2020-01-02', 'tab\there', 'é']|yaml }}",
			"[a b, ' x', it's, say \"hi\", '#c', 'a #c', 'a: b', '-', '- x', '~', 'null', '0x1F',\n  '1.0', '2020-01-02', \"tab\\there\", é]"},
		{"{{ 'x'|yaml }}|{{ 5|yaml }}|{{ none|yaml }}|{{ ['a']|yaml(False) }}|{{ {}|yaml }}|{{ []|yaml(false) }}",
			"x|5|null|- a|{}|[]"},
		{"{{ {'b': [1, 2], 'a': 'x\"y'}|json }}|{{ {'b': 1, 'a': 2}|json(sort_keys=False) }}|{{ [1, [2]]|json(indent=2) }}",
			"{\"a\": \"x\\\"y\", \"b\": [1, 2]}|{\"b\": 1, \"a\": 2}|[\n  1,\n  [\n    2\n  ]\n]"},
		{"{{ 'a\nb\n\nc'|indent }}|{{ 'a\nb'|indent(2, true) }}|{{ 'a\n\nb'|indent(width='> ', blank=true) }}",
			"a\n    b\n\n    c|  a\n  b|a\n> \n> b"},
		{"{% set a = [] %}{% set b = a %}{% do b.append(1) %}{% for x in ['y', 'z'] %}{% do a.append(x) %}{% endfor %}{{ a }} {{ a|length }}",
			"[1, 'y', 'z'] 3"},
		{"{% set l = ['b'] %}{% do l.insert(0, 'a') %}{% do l.insert(-1, 'x') %}{% do l.insert(9, 'z') %}{{ l|join(',') }}",
			"a,x,b,z"},
		// a long flow list wraps at column 80, indented by 2
		{"{{ ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'dddddddddd', 'eeeeeeeeee', 'ffffffffff', 'gggggggggg', 'hhhhhhhhhh']|yaml }}",
			"[aaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd, eeeeeeeeee, ffffffffff, gggggggggg,\n  hhhhhhhhhh]"},
	} {
		r := RenderJinja([]byte(c.src), nil)
		if got := string(r.Text); got != c.want || len(r.Errors) > 0 {
			t.Errorf("%s\n got %q %v\nwant %q", c.src, got, r.Errors, c.want)
		}
	}
}

// An item appended in a branch nobody can decide exists only in the
// renders that take it: the text it makes is marked with that branch,
// whether the list is dumped, joined or looped over, and a list holding
// only such items may be empty.
func TestConditionalAppend(t *testing.T) {
	src := "{%- set inc = [] %}\n{%- if pillar.x %}{% do inc.append('a.b') %}{% endif %}\n{%- do inc.append('c') %}\n" +
		"{%- if inc %}{% endif %}" +
		"Y: {{ inc|yaml }}\nJ: {{ inc|join(' ') }}\nL:{% for i in inc %} <{{ i }}>{% endfor %}\n"
	r := RenderJinja([]byte(src), nil)
	text := string(r.Text)
	if want := "Y: [a.b, c]\nJ: a.b c\nL: <a.b> <c>\n"; text != want {
		t.Fatalf("rendered %q, want %q", text, want)
	}
	var conds []string
	for _, c := range r.Conds {
		conds = append(conds, fmt.Sprintf("%s@%s", text[c.R:c.End], c.Arms[0].Text))
	}
	if got, want := strings.Join(conds, " "), "a.b@pillar.x a.b@pillar.x a.b@pillar.x  <a.b>@pillar.x"; got != want {
		t.Errorf("conditional text %q, want %q", got, want)
	}
	// `if inc` is decided: c is there in every render
	if len(r.Alts) != 1 {
		t.Errorf("alts %v, want only the branch of pillar.x", r.Alts)
	}
	r = RenderJinja([]byte("{%- set inc = [] %}{%- if pillar.x %}{% do inc.append('a') %}{% endif %}{% if inc %}yes{% endif %}"), nil)
	if len(r.Alts) != 2 {
		t.Errorf("`if inc` over a list only a branch fills must be undecidable, alts %v", r.Alts)
	}
	// appended in a loop over unknown items: the list is unknown
	r = RenderJinja([]byte("{%- set l = [] %}{% for x in pillar.xs %}{% do l.append(x) %}{% endfor %}{{ l|yaml }}"), nil)
	if string(r.Text) != Unknown {
		t.Errorf("rendered %q, want unknown", r.Text)
	}
}

// TestYAMLFilterOracle compares the yaml and json filters with the
// dumpers Salt uses, on random values: ORDERING_PYYAML names a python3
// with PyYAML and libyaml (Debian's /usr/bin/python3, which the Salt
// oracle runs on).
func TestYAMLFilterOracle(t *testing.T) {
	py := os.Getenv("ORDERING_PYYAML")
	if py == "" {
		t.Skip("set ORDERING_PYYAML to a python3 with yaml (CSafeDumper)")
	}
	seed := int64(1)
	if v := os.Getenv("ORDERING_PYYAML_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	rng := rand.New(rand.NewSource(seed))
	words := []string{"a", "b.c", "yes", "No", "1", "0x10", "1.5", "-", "- a", ": x", "a: b", "a #b", "#", "?", "'", "\"", "x'y",
		"~", "null", "", " ", "a ", " a", "2021-02-03", "é", "ü ö", "\t", "a\nb", "a\n", "\n", "\\", "%x", "@y", "`z", "[a]", "{b}",
		"!t", "&a", "*b", "|", ">", "=", "<<", "loooooooooooooooooooooooooong", "word word word", "...", "---x", "a,b",
		"\r", "\u0085", "\u2028", "😀", "\ufeff", "\x00", "\x1b", "0o7", "+1", ".5", "1e3", "1_000", "Off", "2021-2-3 4:05:06"}
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := rng.Intn(10); {
		case n < 5 || depth > 3:
			switch rng.Intn(6) {
			case 0:
				return rng.Intn(2000) - 1000
			case 1:
				return rng.Intn(2) == 0
			case 2:
				return nil
			}
			var parts []string
			for i := rng.Intn(4); i >= 0; i-- {
				parts = append(parts, words[rng.Intn(len(words))])
			}
			return strings.Join(parts, []string{"", " ", "  ", ":"}[rng.Intn(4)])
		case n < 8:
			var l []any
			for i := rng.Intn(14); i > 0; i-- {
				l = append(l, gen(depth+1))
			}
			if l == nil {
				l = []any{}
			}
			return l
		default:
			m := map[string]any{}
			for i := rng.Intn(8); i > 0; i-- {
				m[fmt.Sprint(gen(9))] = gen(depth + 1)
			}
			return m
		}
	}
	const n = 3000
	var values []any
	for i := 0; i < n; i++ {
		values = append(values, gen(0))
	}
	in, _ := json.Marshal(values)
	_ = json.Unmarshal(in, &values) // numbers as JSON reads them
	script := `
import json, sys, yaml
from yaml import CSafeDumper
def fy(v, flow):
    t = yaml.dump(v, Dumper=CSafeDumper, default_flow_style=flow, allow_unicode=True).strip()
    return t[:-4] if t.endswith("\n...") else t
out = []
for v in json.load(sys.stdin):
    out.append([fy(v, True), fy(v, False), json.dumps(v, sort_keys=True, ensure_ascii=False)])
json.dump(out, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	outb, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]string
	if err := json.Unmarshal(outb, &want); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, v := range values {
		gv := fromJSON(v)
		for j, flow := range []bool{true, false} {
			got, _, _ := yamlDump(gv, flow)
			if got != want[i][j] && bad < 10 {
				bad++
				t.Errorf("yaml(flow=%v) of %#v:\n got %q\nwant %q", flow, v, got, want[i][j])
			}
		}
		if got, _, _ := jsonDump(gv, true, -1); got != want[i][2] && bad < 10 {
			bad++
			t.Errorf("json of %#v:\n got %q\nwant %q", v, got, want[i][2])
		}
	}
	t.Logf("%d values compared", n)
}
