package puppet

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestValidateDifferential compares this parser with `puppet parser
// validate` on generated manifests that go through the productions of the
// language reference (every way to declare a resource, defaults,
// overrides, collectors, chains, conditionals, selectors, lambdas,
// heredocs, interpolation, definitions of classes, defines, nodes,
// functions and type aliases), plus a mutated copy of each with a token
// removed. Opt-in (one puppet process per file, ~2.5 s each, two at a time):
//
//	PUPPET_VALIDATE=puppet PUPPET_VALIDATE_N=400 go test -run TestValidateDifferential -v ./parser/puppet/
//
// A manifest Puppet accepts must parse here without an error; the count
// of manifests Puppet refuses that we accept is reported (the validator
// checks more than syntax).
func TestValidateDifferential(t *testing.T) {
	puppet := os.Getenv("PUPPET_VALIDATE")
	if puppet == "" {
		t.Skip("set PUPPET_VALIDATE to the puppet command")
	}
	n, _ := strconv.Atoi(os.Getenv("PUPPET_VALIDATE_N"))
	if n <= 0 {
		n = 100
	}
	dir := t.TempDir()
	var files []string
	texts := map[string]string{}
	for seed := 0; seed < n; seed++ {
		// Names are unique across all files: puppet validates them as one
		// environment and refuses a type defined twice.
		g := &gen{rng: rand.New(rand.NewSource(int64(seed))), n: seed * 1000}
		src := g.manifest()
		other := regexp.MustCompile(`\bn(\d+)`).ReplaceAllString(src, "x$1")
		for _, v := range []struct{ name, text string }{{fmt.Sprintf("m%04d.pp", seed), src}, {fmt.Sprintf("x%04d.pp", seed), mutate(g.rng, other)}} {
			p := filepath.Join(dir, v.name)
			os.WriteFile(p, []byte(v.text), 0o644)
			files = append(files, p)
			texts[p] = v.text
		}
	}
	// One puppet per file (two at a time): in one run for many files,
	// puppet stops at some errors without reporting the others.
	refused := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := make(chan string)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				out, err := exec.Command(puppet, "parser", "validate", "--color", "false", "--confdir", filepath.Join(dir, "conf"),
					"--vardir", filepath.Join(dir, "var"+filepath.Base(f)), "--codedir", filepath.Join(dir, "code"), f).CombinedOutput()
				if err != nil {
					mu.Lock()
					refused[f] = strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0]
					mu.Unlock()
				}
			}
		}()
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	var acceptedBoth, refusedBoth, weRefuse, weAccept int
	for _, p := range files {
		f := Parse([]byte(texts[p]))
		ours := len(f.Errors) > 0
		why, theirs := refused[p]
		switch {
		case !theirs && !ours:
			acceptedBoth++
		case theirs && ours:
			refusedBoth++
		case !theirs && ours:
			weRefuse++
			t.Errorf("%s: puppet accepts it, we say %q\n%s", filepath.Base(p), f.Errors[0].Msg, texts[p])
		default:
			weAccept++
			if weAccept <= 5 {
				t.Logf("%s: puppet refuses (%s), we accept:\n%s", filepath.Base(p), why, texts[p])
			}
		}
	}
	t.Logf("%d manifests: both accept %d, both refuse %d, only puppet accepts %d, only we accept %d",
		len(files), acceptedBoth, refusedBoth, weRefuse, weAccept)
}

// mutate drops one token-ish piece of the text (a bracket, a comma, an
// arrow, a keyword...), which is usually a syntax error.
func mutate(rng *rand.Rand, s string) string {
	pieces := []string{"{", "}", "(", ")", "[", "]", ",", "=>", "->", "'", "\"", ":", "|", "$", "if", "node", "class"}
	for i := 0; i < 20; i++ {
		p := pieces[rng.Intn(len(pieces))]
		off := rng.Intn(len(s)/2 + 1)
		if k := strings.Index(s[off:], p); k >= 0 {
			k += off
			return s[:k] + s[k+len(p):]
		}
	}
	return s + "}"
}

type gen struct {
	rng   *rand.Rand
	depth int
	n     int
}

func (g *gen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *gen) name() string {
	g.n++
	return fmt.Sprintf("n%d", g.n)
}

func (g *gen) value() string {
	if g.depth > 3 {
		return g.pick("1", "'s'", "true", "undef")
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.rng.Intn(14) {
	case 0:
		return "'single \\'quoted\\''"
	case 1:
		return `"double ${facts['os']['family']} and $x and ${x}"`
	case 2:
		return g.pick("42", "-3", "0x1F", "1.5e3", "0777")
	case 3:
		return g.pick("true", "false", "undef", "default")
	case 4:
		return "[" + g.value() + ", " + g.value() + g.pick("", ",") + "]"
	case 5:
		return "{ 'k' => " + g.value() + ", k2 => " + g.value() + g.pick("", ",") + " }"
	case 6:
		return "$x ? { 'a' => " + g.value() + ", /^b/ => 2, default => " + g.value() + " }"
	case 7:
		return "lookup('" + g.name() + "', { default_value => " + g.value() + " })"
	case 8:
		return "$facts['networking']['ip']"
	case 9:
		return "[1, 2].map |$v| { $v * 2 }"
	case 10:
		return "@(EOT)\n  heredoc ${x}\n  | EOT"
	case 11:
		return "Notify['" + g.name() + "']"
	case 12:
		return "(1 + 2) * 3 % 2"
	}
	return "sprintf('%s', " + g.value() + ")"
}

func (g *gen) attrs() string {
	var b strings.Builder
	k := g.rng.Intn(3)
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "    %s => %s,\n", g.pick("message", "require", "before", "tag", "loglevel"), g.value())
	}
	if g.rng.Intn(6) == 0 {
		b.WriteString("    * => { 'withpath' => true },\n")
	}
	return b.String()
}

func (g *gen) resource() string {
	t := g.pick("notify", "file", "exec", "package", "service", "Resource['notify']", "Resource[Notify]", "Notify", "File", "@notify", "@@notify")
	switch g.rng.Intn(4) {
	case 0:
		return fmt.Sprintf("%s { '%s':\n%s}\n", t, g.name(), g.attrs())
	case 1:
		return fmt.Sprintf("%s { ['%s', '%s']:\n%s}\n", t, g.name(), g.name(), g.attrs())
	case 2:
		return fmt.Sprintf("%s {\n  '%s':\n%s;\n  '%s':\n%s;\n}\n", t, g.name(), g.attrs(), g.name(), g.attrs())
	}
	return fmt.Sprintf("%s {\n  default:\n%s;\n  '%s':\n%s;\n}\n", t, g.attrs(), g.name(), g.attrs())
}

func (g *gen) statement() string {
	if g.depth > 2 {
		return g.resource()
	}
	top := g.depth == 0
	g.depth++
	defer func() { g.depth-- }()
	k := g.rng.Intn(16)
	if !top && k >= 9 && k <= 13 {
		k = 15 // definitions only at top level (elsewhere see TestNestedDefinitions)
	}
	switch k {
	case 0:
		return fmt.Sprintf("if $x == %s {\n%s} elsif $y =~ /re/ {\n%s} else {\n%s}\n", g.value(), g.statement(), g.statement(), g.statement())
	case 1:
		return fmt.Sprintf("unless $facts['x'] {\n%s} else {\n%s}\n", g.statement(), g.statement())
	case 2:
		return fmt.Sprintf("case $x {\n  'a', 'b': {\n%s  }\n  /^c/: { }\n  default: {\n%s  }\n}\n", g.statement(), g.statement())
	case 3:
		return "Notify { loglevel => 'info' }\n"
	case 4:
		return fmt.Sprintf("Notify['%s'] { message => 'over' }\n", g.name())
	case 5:
		return fmt.Sprintf("Notify['%s'] -> Notify['%s'] ~> Service['%s']\n", g.name(), g.name(), g.name())
	case 6:
		return "Notify <| title == 'a' and tag != 'b' |> -> Notify <| |>\n"
	case 7:
		return "File <<| tag == 'x' |>> { mode => '0644' }\n"
	case 8:
		return fmt.Sprintf("$%s = %s\n", g.name(), g.value())
	case 9:
		return fmt.Sprintf("class %s (\n  Optional[String] $p = undef,\n  Array[Integer[0, 9]] $q = [1],\n) inherits base {\n%s}\n", g.name(), g.statement())
	case 10:
		return fmt.Sprintf("define %s::d (String $v = $title) {\n%s}\n", g.name(), g.statement())
	case 11:
		return fmt.Sprintf("node '%s', /^web\\d+$/ {\n%s}\nnode default { }\n", g.name(), g.statement())
	case 12:
		return fmt.Sprintf("function %s::f(Integer $a, String *$rest) >> Integer {\n  $a + 1\n}\n", g.name())
	case 13:
		return fmt.Sprintf("type %s::T = Variant[String, Struct[{ a => Integer }]]\n", strings.Title(g.name()))
	case 14:
		return "[1, 2].each |$i| {\n  notify { \"each-${i}\": }\n}\n"
	}
	return g.resource()
}

func (g *gen) manifest() string {
	var b strings.Builder
	k := 1 + g.rng.Intn(5)
	for i := 0; i < k; i++ {
		b.WriteString(g.statement())
	}
	return b.String()
}
