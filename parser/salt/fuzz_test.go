package salt

import (
	"testing"
	"time"
)

// FuzzParse feeds arbitrary text to the SLS front end (shebang, Jinja
// expansion, YAML chunks): it must never panic, hang or blow up, and every
// position it reports must lie inside the source.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"a:\n  test.nop\n",
		"{% set x = ['a', 'b'] %}{% for s in x %}\nsvc_{{ s }}:\n  pkg.installed:\n    - require:\n      - pkg: {{ s }}\n{% endfor %}\n",
		"{%- from tplroot ~ '/map.jinja' import m with context %}\n{{ m.x }}:\n  file.managed:\n    - name: {{ m.y | default('z') }}\n",
		"#!yaml|gpg\na: {b: [1, 2]}\n",
		"#!py\ndef run(): return {}\n",
		"{% macro f(x) %}{{ x }}:\n  test.nop{% endmacro %}\n{{ f('a') }}\n{% raw %}{{ x }}{% endraw %}\n",
		"{% if grains['os'] == 'Debian' %}\na: test.nop\n{% elif x %}\nb: test.nop\n{% else %}\nc: test.nop\n{% endif %}\n",
		"a:\n  - b\n: c\n{{\n",
		"{# comment #}\n{%- set d = {'k': [1, {'z': none}]} -%}\n{{ d.k[1].z }}: test.nop\n",
		"x: &a [*a]\n",
	} {
		f.Add([]byte(s))
	}
	cache := NewCache()
	f.Fuzz(func(t *testing.T, src []byte) {
		start := time.Now()
		p := Parse(src, map[string]string{"sls": "a.b", "tpldir": "a"}, cache)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("parse took %v", d)
		}
		check := func(what string, a, b int) {
			if a < 0 || b < a || b > len(src) {
				t.Fatalf("%s span [%d,%d) outside source of %d bytes", what, a, b, len(src))
			}
		}
		for _, e := range p.Errors {
			check("error", e.Start, e.End)
		}
		var walk func(n *Node, depth int)
		walk = func(n *Node, depth int) {
			if n == nil || depth > 300 {
				return
			}
			check("node", n.Start, n.End)
			for i := range n.Keys {
				walk(n.Keys[i], depth+1)
				walk(n.Vals[i], depth+1)
			}
			for _, it := range n.Items {
				walk(it, depth+1)
			}
		}
		for _, e := range p.Entries {
			check("entry", e.Start, e.End)
			walk(e.Key, 0)
			walk(e.Val, 0)
			p.Display(e.Key)
		}
	})
}
