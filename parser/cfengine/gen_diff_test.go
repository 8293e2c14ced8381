package cfengine

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGeneratedAgainstCfPromises compares the parser with cf-promises 3.21
// on generated policy that goes through the productions of the language
// (bundle and body blocks of every common type, parameters, promise types
// with class contexts and class expressions, promisers with and without
// attributes, constraints with strings, lists, naked @(list) and $(var),
// function calls, handles, depends_on, if/unless, bodies used by
// attributes, custom promise blocks, @if macros, comments), plus a copy of
// each with one token removed. Opt-in (needs cf-promises):
//
//	CF_GEN_N=300 go test -run TestGeneratedAgainstCfPromises -v ./parser/cfengine/
//
// What cf-promises accepts must parse without an error here; what it
// refuses that we accept is counted (it checks more than syntax).
func TestGeneratedAgainstCfPromises(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CF_GEN_N"))
	if n <= 0 {
		t.Skip("set CF_GEN_N to a number of seeds")
	}
	cfp, err := exec.LookPath("cf-promises")
	if err != nil {
		t.Skip("cf-promises not installed")
	}
	var bothOK, bothRefuse, weRefuse, weAccept int
	for seed := 0; seed < n; seed++ {
		g := &cfGen{rng: rand.New(rand.NewSource(int64(seed)))}
		src := g.policy()
		for k, text := range []string{src, g.mutate(src)} {
			name := fmt.Sprintf("g%04d_%d.cf", seed, k)
			f := Parse([]byte(text))
			out, runErr := cfPromisesJSON(t, cfp, filepath.Join(t.TempDir(), name), []byte(text))
			ours := len(f.Errors) > 0
			switch {
			case runErr == nil && !ours:
				bothOK++
			case runErr != nil && ours:
				bothRefuse++
			case runErr == nil && ours:
				weRefuse++
				t.Errorf("%s: cf-promises accepts, we say %q\n%s", name, f.Errors[0].Message, text)
			default:
				weAccept++
				if weAccept <= 5 {
					t.Logf("%s: cf-promises refuses (%s), we accept:\n%s", name, firstLine(out), text)
				}
			}
		}
	}
	t.Logf("%d policies: both accept %d, both refuse %d, only cf-promises accepts %d, only we accept %d",
		2*n, bothOK, bothRefuse, weRefuse, weAccept)
}

type cfGen struct {
	rng *rand.Rand
	n   int
}

func (g *cfGen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *cfGen) name() string {
	g.n++
	return fmt.Sprintf("x%d", g.n)
}

func (g *cfGen) class() string {
	switch g.rng.Intn(6) {
	case 0:
		return "any"
	case 1:
		return "linux.!windows"
	case 2:
		return "(debian|redhat).x86_64"
	case 3:
		return "cfengine_3&!am_policy_hub"
	case 4:
		return `"$(sys.class)"`
	}
	return g.name() + "_ok"
}

func (g *cfGen) str() string {
	return g.pick(`"plain"`, `"with $(sys.fqhost) and ${const.n}"`, `'single quoted'`, `"escaped \" quote"`, "`backticks`", `"$(this.promise_filename)"`)
}

func (g *cfGen) rval() string {
	switch g.rng.Intn(7) {
	case 0:
		return "{ " + g.str() + ", " + g.str() + " }"
	case 1:
		return "{ }"
	case 2:
		return "concat(" + g.str() + ", " + g.str() + ")"
	case 3:
		return `ifelse("linux", "a", "b")`
	case 4:
		return `splitstring("a,b", ",", "10")`
	case 5:
		return "@(" + g.pick("list", "this.list", "def.x") + ")"
	}
	return g.str()
}

func (g *cfGen) promises(bundleType string) string {
	var b strings.Builder
	types := map[string][]string{
		"agent":     {"vars", "classes", "files", "commands", "reports", "methods", "processes", "meta", "defaults"},
		"common":    {"vars", "classes", "reports", "meta"},
		"edit_line": {"insert_lines", "delete_lines", "replace_patterns", "vars", "classes"},
		"server":    {"access", "vars"},
		"monitor":   {"measurements", "vars"},
	}[bundleType]
	k := 1 + g.rng.Intn(3)
	for i := 0; i < k; i++ {
		pt := types[g.rng.Intn(len(types))]
		fmt.Fprintf(&b, "  %s:\n", pt)
		if g.rng.Intn(2) == 0 {
			fmt.Fprintf(&b, "    %s::\n", g.class())
		}
		m := 1 + g.rng.Intn(2)
		for j := 0; j < m; j++ {
			b.WriteString(g.promise(pt))
		}
		if g.rng.Intn(5) == 0 {
			b.WriteString("      # a comment\n")
		}
	}
	return b.String()
}

func (g *cfGen) promise(pt string) string {
	attrs := map[string][]string{
		"vars":             {"string => " + g.str(), "slist => " + g.rval(), `int => "42"`, `data => parsejson('{"a": 1}')`},
		"classes":          {`expression => "linux"`, `or => { "a", "b" }`, `and => { "linux", "x86_64" }`, `not => "windows"`},
		"files":            {`create => "true"`, `perms => m("644")`, `edit_line => el("x")`, `copy_from => cp("/src")`, `depth_search => recurse("inf")`},
		"commands":         {`contain => in_shell`, `classes => if_repaired("done")`},
		"reports":          {`friend_pattern => "x"`},
		"methods":          {`usebundle => b1("arg")`, `usebundle => b2`},
		"processes":        {`restart_class => "restart"`, `signals => { "term" }`},
		"meta":             {"slist => " + g.rval(), "string => " + g.str()},
		"defaults":         {`string => "default"`, `if_match_regex => ".*"`},
		"insert_lines":     {`location => start`, `insert_type => "preserve_block"`},
		"delete_lines":     {`not_matching => "false"`},
		"replace_patterns": {`replace_with => value("x")`},
		"access":           {`admit => { "127.0.0.1" }`, `shortcut => "s"`},
		"measurements":     {`stream_type => "file"`, `data_type => "int"`},
	}[pt]
	promiser := g.pick(`"/tmp/`+g.name()+`"`, `"`+g.name()+`"`, `"$(list)"`)
	if pt == "vars" || pt == "classes" || pt == "meta" || pt == "defaults" {
		promiser = `"` + g.name() + `"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "      %s", promiser)
	var cs []string
	k := g.rng.Intn(3)
	if pt == "vars" || pt == "meta" || pt == "defaults" || pt == "classes" {
		k = 1 // one value per promise: a second type would redefine it
	}
	if len(attrs) > 0 {
		for i := 0; i < k; i++ {
			cs = append(cs, attrs[g.rng.Intn(len(attrs))])
		}
	}
	if g.rng.Intn(4) == 0 {
		cs = append(cs, `handle => "`+g.name()+`"`)
	}
	if g.rng.Intn(5) == 0 {
		cs = append(cs, g.pick(`if => "linux"`, `unless => "windows"`, `depends_on => { "h1" }`, `comment => "why"`))
	}
	if len(cs) > 0 {
		b.WriteString("\n        " + strings.Join(cs, ",\n        "))
	}
	b.WriteString(";\n")
	return b.String()
}

func (g *cfGen) policy() string {
	var b strings.Builder
	if g.rng.Intn(3) == 0 {
		b.WriteString("body common control\n{\n  bundlesequence => { \"main\" };\n  inputs => { };\n}\n\n")
	}
	b.WriteString("bundle agent main\n{\n" + g.promises("agent") + "}\n\n")
	for i := g.rng.Intn(3); i > 0; i-- {
		t := g.pick("common", "agent", "edit_line", "server", "monitor")
		params := g.pick("", "(a)", "(a, b)")
		fmt.Fprintf(&b, "bundle %s %s%s\n{\n%s}\n\n", t, g.name(), params, g.promises(t))
	}
	if g.rng.Intn(2) == 0 {
		b.WriteString("body perms m(mode)\n{\n  mode => \"$(mode)\";\n  linux::\n    owners => { \"root\" };\n}\n\n")
	}
	if g.rng.Intn(3) == 0 {
		b.WriteString("body copy_from cp(from)\n{\n  source => \"$(from)\";\n  compare => \"digest\";\n}\n\n")
	}
	if g.rng.Intn(4) == 0 {
		b.WriteString("@if minimum_version(3.18)\nbundle agent newer\n{\n  reports:\n    \"new\";\n}\n@endif\n\n")
	}
	if g.rng.Intn(4) == 0 {
		b.WriteString("promise agent git\n{\n  path => \"/var/cfengine/modules/promises/git.py\";\n  interpreter => \"/usr/bin/python3\";\n}\n\n")
	}
	return b.String()
}

// mutate drops one token-ish piece, usually a syntax error.
func (g *cfGen) mutate(s string) string {
	pieces := []string{"{", "}", ";", ",", "=>", "::", "\"", "(", ")", "bundle", "body"}
	for i := 0; i < 30; i++ {
		p := pieces[g.rng.Intn(len(pieces))]
		off := g.rng.Intn(len(s)/2 + 1)
		if k := strings.Index(s[off:], p); k >= 0 {
			k += off
			return s[:k] + s[k+len(p):]
		}
	}
	return s + "}"
}
