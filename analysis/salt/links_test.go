package salt

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

const linksArchive = `entry: web/init.sls
-- web/init.sls --
include:
  - .pkg
  - base
{% set svcs = ['a', 'b'] %}
{% for s in svcs %}
svc_{{ s }}:
  service.running:
    - name: web-{{ s }}
    - require:
      - pkg: web_pkg
      - sls: base
    - watch:
      - file: conf_*
{% endfor %}
conf_main:
  file.managed:
    - name: /etc/web.conf
    - require_in:
      - service: svc_a
conf_extra:
  file.managed:
    - names:
      - /etc/x.conf
      - /etc/y.conf
by_name:
  test.nop:
    - require:
      - file: /etc/y.conf
      - web-b
extend:
  base_state:
    test.nop:
      - order: 1
-- web/pkg.sls --
web_pkg:
  pkg.installed
-- base.sls --
base_state:
  test.nop
`

// text returns the source text a span covers.
func text(t *testing.T, ws *source.Workspace, sp source.Span) string {
	t.Helper()
	f := analysis.FileOf(ws, sp.URI)
	if f == nil {
		t.Fatalf("no file %s", sp.URI)
	}
	return string(f.Text[sp.Start:sp.End])
}

// TestLinks checks go-to-definition: every requisite entry, include entry,
// _in entry and extend key points at what Salt would use, and positions
// land on the source text (inside Jinja loops too).
func TestLinks(t *testing.T) {
	ar := txtar.Parse([]byte(linksArchive))
	out := analysistest.Load(t, New(), ar)
	ws := out.WS
	got := map[string][]string{}
	for _, l := range out.Result.Links {
		var targets []string
		for _, n := range l.Nodes {
			targets = append(targets, n.Ref)
		}
		for _, f := range l.Files {
			targets = append(targets, filepath.Base(source.URIToPath(f.URI)))
		}
		sort.Strings(targets)
		key := filepath.Base(source.URIToPath(l.At.URI)) + ": " + text(t, ws, l.At)
		got[key] = append(got[key], strings.Join(targets, " | "))
	}
	want := map[string]string{
		"init.sls: .pkg":              "pkg.sls",
		"init.sls: base":              "base.sls",
		"init.sls: pkg: web_pkg":      "pkg.installed web_pkg web_pkg",
		"init.sls: sls: base":         "base.sls | test.nop base_state base_state",
		"init.sls: file: conf_*":      "file.managed conf_extra /etc/x.conf | file.managed conf_extra /etc/y.conf | file.managed conf_main /etc/web.conf",
		"init.sls: service: svc_a":    "service.running svc_a web-a",
		"init.sls: file: /etc/y.conf": "file.managed conf_extra /etc/y.conf",
		"init.sls: web-b":             "service.running svc_b web-b",
		"init.sls: base_state":        "test.nop base_state base_state",
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("no link at %q; links: %v", k, got)
			continue
		}
		// loops give one link per iteration at the same text: all agree
		// on the union of what each iteration names
		if !containsStr(g, w) {
			t.Errorf("link %q -> %v, want %q", k, g, w)
		}
	}
	if len(out.Diags) != 0 {
		t.Errorf("unexpected diagnostics: %v", out.Diags)
	}
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestFacts checks what hover explains about a state: its order value and
// where it came from, the _in declarations pointing at it, its position.
func TestFacts(t *testing.T) {
	ar := txtar.Parse([]byte(linksArchive))
	out := analysistest.Load(t, New(), ar)
	find := func(ref string) *analysis.Node {
		for _, n := range out.Result.Graph.Nodes {
			if n.Ref == ref {
				return n
			}
		}
		t.Fatalf("no node %q", ref)
		return nil
	}
	facts := func(n *analysis.Node) string {
		var b strings.Builder
		for _, f := range n.Facts {
			b.WriteString(f.Label + ": " + f.Value + "\n")
		}
		return b.String()
	}
	svcA := find("service.running svc_a web-a")
	if f := facts(svcA); !strings.Contains(f, "declared by require_in: file: conf_main (") || !strings.Contains(f, "order value: 10002 from auto-order") {
		t.Errorf("svc_a facts:\n%s", f)
	}
	base := find("test.nop base_state base_state")
	if f := facts(base); !strings.Contains(f, "order value: 1 from explicit `order: 1`") {
		t.Errorf("base_state facts:\n%s", f)
	}
	if got := text(t, out.WS, svcA.Decl); got != "svc_{{ s }}" {
		t.Errorf("svc_a declared at %q, want the templated key", got)
	}
	y := find("file.managed conf_extra /etc/y.conf")
	if got := text(t, out.WS, y.Decl); got != "/etc/y.conf" {
		t.Errorf("names entry declared at %q", got)
	}
	if ps := out.Result.Positions(svcA); len(ps) == 0 {
		t.Errorf("svc_a is in no run")
	}
	var syms []string
	uri := source.PathToURI(filepath.Join(out.Dir, "web", "init.sls"))
	for _, s := range out.Result.Symbols(uri) {
		syms = append(syms, s.Node.Ref)
	}
	if len(syms) < 5 {
		t.Errorf("document symbols: %v", syms)
	}
	_ = os.Getenv
}

// TestConditionFact: hover says which undecided Jinja condition a state's
// existence rests on (issue 14: Puppet's hover named the test, Salt's did
// not), and says nothing for a state outside any branch or under a
// condition the facts decide.
func TestConditionFact(t *testing.T) {
	const src = `-- a.sls --
always:
  test.nop
{% if salt['pillar.get']('web:enabled') %}
web:
  test.nop
{% endif %}
{% if grains['os'] == 'Debian' %}
deb:
  test.nop
{% endif %}
-- facts.yaml --
pillar:
  web:
    enabled: true
`
	for _, tc := range []struct {
		comment string
		ref     string
		want    string // "" = no condition fact
	}{
		{"", "test.nop always always", ""},
		{"", "test.nop web web", "declared only when salt['pillar.get']('web:enabled'), which depends on grains, pillar"},
		{"", "test.nop deb deb", "declared only when grains['os'] == 'Debian'"},
		{"setting: salt.facts=facts.yaml\n", "test.nop web web", ""},
	} {
		ar := txtar.Parse([]byte(src))
		ar.Comment = []byte("entry: a.sls\n" + tc.comment)
		out := analysistest.Load(t, New(), ar)
		var got string
		found := false
		for _, n := range out.Result.Graph.Nodes {
			if n.Ref != tc.ref {
				continue
			}
			found = true
			for _, f := range n.Facts {
				if f.Label == "condition" {
					got = f.Value
				}
			}
		}
		if !found {
			t.Errorf("no node %q", tc.ref)
			continue
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: condition fact %q, want %q", tc.ref, got, tc.want)
		}
	}
}
