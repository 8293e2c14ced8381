package salt

import (
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestYAMLProblem: the position of a yaml.v3 parser error is PyYAML's
// problem mark, the one Salt prints. Each want is PyYAML 6's
// (python3 -c 'yaml.safe_load(...)', problem_mark line/column from 1).
func TestYAMLProblem(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want string // line:column; "" where yaml.v3's own line stays
	}{
		{"a:\n  - x\n b: 1\n", "3:2"},              // found '<block mapping start>'
		{"a:\n  b: 1\n  c: \"v\" extra\n", "3:10"}, // found '<scalar>'
		{"a: [x, y}\n", "1:9"},                     // expected ',' or ']', but got '}'
		{"a: {x: y, z]\n", "1:12"},
		{"a:\n  b: 1\n - c\n", "3:2"}, // found '<block sequence start>'
		{"a: [x, y: z: w]\n", "1:12"}, // got ':'
		{"a:\n  b:\n  - c\n d: 1\n", "4:2"},
		// syntax_recovery: the flow runs on into the next state
		{"good_one:\n  test.nop\nbroken:\n  test.nop:\n    - name: [unclosed\ngood_two:\n  test.nop:\n    - require:\n      - test: good_one\n", "6:9"},
		// buengese/salt-config blacklist/init.sls (PyYAML: context 4:3)
		{"# c\n\n/etc/x:\n  file.managed:\n    - source: s\n    - user: root\n  - cmd.run:\n    - name: y\n", "7:3"},
		// Vlot-Ltd/homelab-saltstack netbox/config.sls: after blank lines
		{"\n\n\na:\n  b: 1\n\n c:\n   d\n", "7:2"},
		{"lib:\n  x: 1\nbroken:\n  pkg.installed:\n    - name: X\n   - bad: indent\n", "6:4"},
		{"a:\n  b: 'q' r\n", "2:10"},
		{"a:\n  - b\n  c: 1\n", "3:3"}, // found '?'
		{"x:\n  - a\n  -b: 1\n  y: 2\n", "3:3"},
		{"x: 1\ny\nz: 2\n", ""}, // a scanner error: could not find expected ':'
		// giangkoi65/saltstack nginx/init.sls: the ',' after a quoted
		// scalar is PyYAML's flow entry token, in a block too
		{"a:\n  - x: 'test', 'test2'\n  - y\n", "2:14"},
		{"a:\n  b: 'q', r\n", "2:9"},
		{"a:\n  b: \"q\",r\n", "2:9"},
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.doc), &n)
		if err == nil {
			t.Errorf("%q parses", c.doc)
			continue
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if m := lineRe.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
		}
		off, ok := yamlProblem([]byte(c.doc), msg, line)
		got := ""
		if ok {
			ls := lineStarts([]byte(c.doc), 0, len(c.doc))
			l := 0
			for l+1 < len(ls) && ls[l+1] <= off {
				l++
			}
			got = strconv.Itoa(l+1) + ":" + strconv.Itoa(off-ls[l]+1)
		}
		if got != c.want {
			t.Errorf("%q (%s): got %q, want %q", c.doc, err, got, c.want)
		}
	}
}
