package salt

import (
	"strings"
	"testing"
)

// TestJinjaExpansion checks what the template front end knows.
func TestJinjaExpansion(t *testing.T) {
	cases := []struct{ src, want string }{
		{"{% for n in 'subuid', 'subgid' %}/etc/{{ n }}\n{% endfor %}", "/etc/subuid\n/etc/subgid\n"},
		{"{% set a, b = 1, 2 %}{{ a }}-{{ b }}", "1-2"},
		{"{% set x = ['a','b'] %}{{ x | join(',') }}", "a,b"},
		{"{% set d = {'k': 'v'} %}{% for k, v in d.items() %}{{ k }}={{ v }}{% endfor %}", "k=v"},
		{"{{ tpldir.split('/')[0] ~ '.pkg' }}", "nginx.pkg"},
		{"{% if 'a' in ['a'] %}yes{% else %}no{% endif %}", "yes"},
		{"{{ pillar.get('x') }}", Unknown},
		{"{%- set s = 'A' -%}\n  {{ s | lower }}", "a"},
		{"{% raw %}{{ x }}{% endraw %}", "{{ x }}"},
		{"{# c #}{{ 1 + 2 }}", "3"},
		{"{% for i in range(3) %}{{ loop.index }}{% endfor %}", "123"},
	}
	for _, c := range cases {
		r := RenderJinja([]byte(c.src), map[string]string{"tpldir": "nginx/pkg"})
		if got := string(r.Text); strings.TrimSpace(got) != strings.TrimSpace(c.want) {
			t.Errorf("%q renders %q, want %q", c.src, got, c.want)
		}
	}
}
