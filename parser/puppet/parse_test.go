package puppet

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestParseDump prints the statements of PP=file (a debugging aid).
func TestParseDump(t *testing.T) {
	p := os.Getenv("PP")
	if p == "" {
		t.Skip("set PP=file.pp")
	}
	src, _ := os.ReadFile(p)
	f := Parse(src)
	for _, e := range f.Errors {
		t.Logf("error %d-%d %q: %s", e.Pos, e.End, src[e.Pos:e.End], e.Msg)
	}
	for _, s := range f.Stmts {
		t.Logf("%T %q", s, strings.SplitN(string(src[s.Span().Pos:s.Span().End]), "\n", 2)[0])
	}
}

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f := Parse([]byte(src))
	for _, e := range f.Errors {
		t.Errorf("unexpected error at %d %q: %s", e.Pos, src[e.Pos:e.End], e.Msg)
	}
	return f
}

// The whole language parses without errors.
func TestLanguage(t *testing.T) {
	src := `
class foo($x = 1, Optional[String] $y = undef, *$rest) inherits foo::params {
  notify { "hi ${x} $y ${facts['os']['family']} ${lookup('k')}": message => @("END"/L)
    hello ${x}
    | END
  }
  $text = @(EOT)
    raw $x
    EOT
  if $x == 1 and $facts['os']['family'] =~ /Red(Hat)?/ { include bar, baz }
  elsif $y in ['a', 'b'] { contain qux } else { require zz }
  unless $x { notice('no') }
  $arr.each |$i| { file { "/tmp/${i}": ensure => file } }
  each($h) |$k, $v| { notify { $k: } }
  case $x { 'a', 'b': { } /re/: { } default: { notice('d') } }
  $v = $x ? { 1 => 'one', default => 'other' }
  File['/a'] -> Package['b'] ~> Service['c'] <- Exec['d'] <~ Exec['e']
  Package <| tag == 'x' and (title == 'y' or name != 'z') |> -> Service <| |>
  User <<| |>> { shell => '/bin/sh' }
  File { owner => root }
  File['/x'] { mode => '0644', require +> Package['p'] }
  @user { 'u': }
  @@file { 'e': }
  notify { ['a','b']: ; 'c': * => $h; default: loglevel => info }
  class { 'x': stage => pre }
  $a = [1, 2, 3,]
  $b = { 'k' => [1], k2 => { n => -1.5e3 } }
  $c = $a[0] + $b['k'][0] * 2 - 0x1F % 3
  $d = Resource['file', '/x']
  $e = !$d
  $f = "escaped \$ and \" and \u{1F600}"
  $g = $a.map |$n| { $n * 2 }.filter |$n| { $n > 2 }
  $s = 'it\'s'
  /* block
     comment */
  realize(User['u'])
  realize User['u']
}
node default, 'web.example.com', /db/ { include foo }
node db01.example.com { }
define x::y(String $a, Array[String] $b = []) { notify { $title: } }
function mymod::f(Integer $x) >> Integer { $x + 1 }
type MyType = Variant[String, Integer]
plan mymod::p(TargetSpec $t) { run_task('x', $t) }
Class['a'] -> Class['b']
Stage['pre'] -> Stage['main']
`
	f := mustParse(t, src)
	if len(f.Stmts) != 9 {
		t.Errorf("got %d top-level statements, want 9", len(f.Stmts))
	}
}

// A line that ends in `inherits`, `and`, `or` or `in` goes on on the next,
// even where that starts at column 0 (puppet-order: Notify[v 1], then
// Notify[in]; raj-andy1/control-repo writes `) inherits` above
// `cis::params {`). Cut there, the class was a syntax error.
func TestOperatorEndsNoLine(t *testing.T) {
	src := "class p { $v = 1 }\nclass c inherits\np {\n  notify { \"v ${v}\": }\n  $b = true and\nfalse\n  if 'x' in\n['x'] { notify { 'in': } }\n}\ninclude c\n"
	for _, f := range []*File{mustParse(t, src), (&Parser{}).Parse([]byte(src))} {
		if len(f.Errors) > 0 || len(f.Stmts) != 3 {
			t.Fatalf("%d statements, errors %v; want 3 and none", len(f.Stmts), f.Errors)
		}
		c, ok := f.Stmts[1].(*ClassDef)
		if !ok || c.Parent != "p" || len(c.Body) != 3 {
			t.Fatalf("second statement %T %+v; want class c inherits p with 3 statements", f.Stmts[1], f.Stmts[1])
		}
	}
	if g := Parse([]byte("$a = 1 and\n-1\n")); len(g.Errors) > 0 || len(g.Stmts) != 1 {
		t.Errorf("`$a = 1 and` then `-1`: %d statements, errors %v; want one", len(g.Stmts), g.Errors)
	}
}

// A type reference before titled bodies declares resources, as Puppet
// reads it (voxpupuli/puppet-rabbitmq writes `Exec { 'name': ... }`);
// before attributes alone it sets defaults.
func TestCapitalisedDeclaration(t *testing.T) {
	f := mustParse(t, "Exec { 'rm': command => '/bin/true' }\nExec { path => '/bin' }\nFoo::Bar { ['a', 'b']: }\n")
	r, ok := f.Stmts[0].(*Resource)
	if !ok || r.Type != "exec" || len(r.Bodies) != 1 {
		t.Fatalf("Exec { 'rm': ... } is %T %+v, want a resource of type exec", f.Stmts[0], f.Stmts[0])
	}
	if _, ok := f.Stmts[1].(*ResourceDefaults); !ok {
		t.Errorf("Exec { path => ... } is %T, want defaults", f.Stmts[1])
	}
	if r, ok := f.Stmts[2].(*Resource); !ok || r.Type != "foo::bar" {
		t.Errorf("Foo::Bar { [...]: } is %T, want a resource of type foo::bar", f.Stmts[2])
	}
	// touching what precedes, `[` is an access Puppet refuses there
	if g := Parse([]byte("function f() >> Integer {0}[]")); len(g.Errors) == 0 {
		t.Errorf("function f() >> Integer {0}[] parsed without error; Puppet refuses it")
	}
}

func TestLexer(t *testing.T) {
	cases := []struct {
		src  string
		want []string // kind:value
	}{
		{`$a = 10 / 2`, []string{"variable:a", "punctuation:=", "number:10", "punctuation:/", "number:2"}},
		{`$a =~ /x\/y/`, []string{"variable:a", "punctuation:=~", "regex:x\\/y"}},
		{`Foo::Bar ::baz foo::bar`, []string{"type name:Foo::Bar", "name:::baz", "name:foo::bar"}},
		{`'a\'b\\c\d'`, []string{"string:a'b\\c\\d"}},
		{`"x\ty"`, []string{"string:x\ty"}},
		{"@(E)\nbody\nE\n$x", []string{"string:body\n", "variable:x"}},
		{"\xff", []string{"illegal:unexpected character"}},
		{`"unterminated`, []string{"illegal:unterminated quoted string"}},
		{`<<| |>> <| |>`, []string{"punctuation:<<|", "punctuation:|>>", "punctuation:<|", "punctuation:|>"}},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range Lex([]byte(c.src)) {
			if tk.Kind == TEOF {
				break
			}
			got = append(got, tk.Kind.String()+":"+tk.Val)
		}
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("Lex(%q)\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// Offsets are bytes, also after multi-byte characters.
func TestOffsets(t *testing.T) {
	src := "notify { 'é😀': }\nnotify { 'b': require => Notify['x'] }\n"
	f := mustParse(t, src)
	r := f.Stmts[1].(*Resource)
	ref := r.Bodies[0].Attrs[0].Value
	if got := src[ref.Span().Pos:ref.Span().End]; got != "Notify['x']" {
		t.Errorf("span covers %q", got)
	}
}

// A syntax error costs its chunk only.
func TestRecovery(t *testing.T) {
	src := "notify { 'a': }\nnotify { 'b':\n  message => 'x'\nnotify { 'c': }\nclass k { file { '/x': ensure => }\n}\nnotify { 'd': }\n"
	f := Parse([]byte(src))
	if len(f.Errors) != 2 {
		t.Fatalf("errors: %+v", f.Errors)
	}
	var titles []string
	for _, s := range f.Stmts {
		if r, ok := s.(*Resource); ok {
			titles = append(titles, r.Bodies[0].Title.(*Str).Value)
		}
	}
	if strings.Join(titles, ",") != "a,c,d" {
		t.Errorf("kept %v", titles)
	}
	if e := f.Errors[0]; src[e.Pos:e.End] != "notify" || !strings.HasPrefix(e.Msg, "Syntax error at 'notify'") {
		t.Errorf("first error %q at %q", e.Msg, src[e.Pos:e.End])
	}
}

// A line half typed into a statement costs that line only: a resource is
// read without the attribute being typed (its other attributes, its
// place), an `if` block without the resource being typed into it, with
// the chunk's error kept, in a class body and at the top level. A
// statement with two broken lines is still dropped, and no line that
// opens or closes more than it closes or opens goes: a broken `} els {`
// is not read as one branch (the `if` before it stands alone). A `$`
// typed on a line of its own ends there: the statement after it stays.
func TestRecoverStatement(t *testing.T) {
	cases := []struct {
		src  string
		want string // the resources kept: title: attribute names
	}{
		{"class web {\n  file { '/etc/web':\n    ensure => directory,\n    mo\n  }\n  notify { 'n': }\n}\n", "/etc/web: ensure; n:"},
		{"file { '/etc/web':\n  ensure => directory,\n  mode =>\n}\nnotify { 'n': }\n", "/etc/web: ensure; n:"},
		{"@file { '/v':\n  ensure => file,\n  owner => 'root' x,\n  group => 'root',\n}\n", "/v: ensure group"},
		{"file { '/etc/web':\n  ensure => ,\n  mode =>\n}\nnotify { 'n': }\n", "n:"},
		{"class web {\n  if $x {\n    mo =>\n  }\n  notify { 'n': }\n}\n", "n:"},
		{"class web {\n  if $x {\n    notify { 'a': }\n    notify { 'b' }\n  }\n  notify { 'n': }\n}\n", "a:; n:"},
		{"class web {\n  if $x {\n    notify { 'a': }\n  } els {\n    notify { 'b': }\n  }\n  notify { 'n': }\n}\n", "a:; n:"}, // the if stands, its broken else goes
		{"notify { 'a':\n  message => 'x',\n} els {\n  notify { 'b': }\n}\n", "a: message"},
		{"class web {\n  $\n  file { '/etc/web': ensure => directory }\n  notify { 'n': }\n}\n", "/etc/web: ensure; n:"}, // `$` typed on a line of its own
		{"class web {\n  notify { 'a': }\n  $\n  file { '/etc/web': ensure => directory }\n}\n", "a:; /etc/web: ensure"},
		{"$\nnotify { 'n': }\n", "n:"},
	}
	for _, c := range cases {
		f := Parse([]byte(c.src))
		if len(f.Errors) != 1 {
			t.Errorf("%q: errors %+v, want the one", c.src, f.Errors)
		}
		var got []string
		for _, s := range f.Stmts {
			Walk(s, func(n Node) bool {
				if r, ok := n.(*Resource); ok {
					for _, b := range r.Bodies {
						w := b.Title.(*Str).Value + ":"
						for _, a := range b.Attrs {
							w += " " + a.Name
						}
						got = append(got, w)
					}
				}
				return true
			})
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%q: kept %q, want %q", c.src, strings.Join(got, "; "), c.want)
		}
	}
}

// Editing one statement re-parses only its chunk; the others are reused
// and shifted to their new offsets.
func TestIncremental(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("notify { 'n")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("': require => Notify['m'] }\n")
	}
	src := b.String()
	ps := &Parser{}
	ps.Parse([]byte(src))
	edited := strings.Replace(src, "nxx'", "nxxy'", 1)
	f := ps.Parse([]byte(edited))
	if ps.Parsed != 1 || ps.Reused != 99 {
		t.Errorf("parsed %d reused %d", ps.Parsed, ps.Reused)
	}
	fresh := Parse([]byte(edited))
	for i := range fresh.Stmts {
		a, b := f.Stmts[i].(*Resource), fresh.Stmts[i].(*Resource)
		if *a.Span() != *b.Span() || *a.Bodies[0].Attrs[0].Value.Span() != *b.Bodies[0].Attrs[0].Value.Span() {
			t.Fatalf("statement %d: reused span %v, fresh %v", i, a.Span(), b.Span())
		}
	}
}

// Deep nesting is an error, not a crash.
func TestDeepNesting(t *testing.T) {
	src := "$x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	f := Parse([]byte(src))
	if len(f.Errors) == 0 {
		t.Fatal("no error for 100000-deep nesting")
	}
}

// randomEdit puts one of edits at a random place of src, sometimes
// deleting up to 3 bytes there, and now and then goes back to big.
func randomEdit(rnd func(int) int, src, big []byte, edits []string) ([]byte, int) {
	at := rnd(len(src) + 1)
	del := 0
	if rnd(3) == 0 {
		del = min(len(src)-at, rnd(4))
	}
	next := append(append(append([]byte(nil), src[:at]...), edits[rnd(len(edits))]...), src[at+del:]...)
	if rnd(40) == 0 {
		next = append([]byte(nil), big...)
	}
	return next, at
}

// editManifest is a real-looking manifest (a heredoc, interpolation, a
// regex, conditionals, a node, a define) the edit tests cut up.
var editManifest = []byte(`class a($x = 1) {
  notify { "n-${x}": message => @("E")
    body ${x}
    | E
  }
  $r = $x =~ /a\/b/
  if $x == 1 { notify { 'one': } } elsif $x == 2 { notify { 'two': } } else { }
}
# comment
node default { include a }
define d() { file { "/tmp/${title}": ensure => file } }
d { 'one': }
$y = 10 / 2
`)

// Incremental lexing gives exactly the tokens of a full lex, for random
// edits of a real-looking manifest.
func TestIncrementalLexEquivalence(t *testing.T) {
	base := editManifest
	var big []byte
	for i := 0; i < 20; i++ {
		big = append(big, base...)
	}
	edits := []string{"x", "\"", "'", "{", "}", "@(F)\n", "/", "\n", "#", "$", ""}
	seed := uint32(7)
	rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	src := append([]byte(nil), big...)
	ps := &Parser{}
	ps.Parse(src)
	for i := 0; i < 400; i++ {
		at := rnd(len(src))
		del := rnd(3)
		if at+del > len(src) {
			del = 0
		}
		ins := edits[rnd(len(edits))]
		next := append(append(append([]byte(nil), src[:at]...), ins...), src[at+del:]...)
		inc := ps.lex(next)
		full := Lex(next)
		if len(inc) != len(full) {
			t.Fatalf("edit %d at %d: %d tokens incrementally, %d in full", i, at, len(inc), len(full))
		}
		for k := range full {
			a, b := inc[k], full[k]
			if a.Kind != b.Kind || a.Val != b.Val || a.Pos != b.Pos || a.End != b.End || a.NL != b.NL || len(a.Parts) != len(b.Parts) {
				t.Fatalf("edit %d at %d: token %d differs: %+v vs %+v", i, at, k, a, b)
			}
			for m := range a.Parts {
				if a.Parts[m] != b.Parts[m] {
					t.Fatalf("edit %d: token %d part %d differs", i, k, m)
				}
			}
		}
		ps.Parse(next)
		src = next
	}
}

// Incremental parsing (chunks reused by content, tokens re-lexed only
// around the edit) gives exactly the syntax tree and errors of a full
// parse, for random edits that break and mend the text. A syntax error
// may name the token after its chunk, so errors are compared too.
func TestIncrementalParseEquivalence(t *testing.T) {
	base := []byte(`class a($x = 1) {
  notify { "n-${x}": message => "v ${x}" }
  if $x == 1 { notify { 'one': } } else { }
}
define d() { file { "/tmp/${title}": ensure => file } }
d { 'one': }
node default { include a }
notify { 'top': require => Class['a'] }
`)
	var big []byte
	for i := 0; i < 4; i++ {
		big = append(big, base...)
	}
	edits := []string{"x", "'", "\"", "{", "}", "(", "\n", "#", "$", "notify { 'q': }\n", "le", " ", ""}
	dumpFile := func(f *File) string {
		var b strings.Builder
		for _, s := range f.Stmts {
			Walk(s, func(n Node) bool {
				fmt.Fprintf(&b, "%T%v ", n, *n.Span())
				return true
			})
		}
		for _, e := range f.Errors {
			fmt.Fprintf(&b, "\nerror %v %s", e.Loc, e.Msg)
		}
		return b.String()
	}
	seed := uint32(99)
	rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	src := append([]byte(nil), big...)
	ps := &Parser{}
	ps.Parse(src)
	for i := 0; i < 1500; i++ {
		next, at := randomEdit(rnd, src, big, edits)
		got, want := dumpFile(ps.Parse(next)), dumpFile(Parse(next))
		if got != want {
			t.Fatalf("edit %d at %d: incremental parse differs\n%s\n--- full\n%s\n--- incremental\n%s", i, at, next, want, got)
		}
		src = next
	}
}

// A reused chunk is shifted to its new place; a class without a parent
// keeps the zero ParentLoc a fresh parse gives it (it used to be shifted
// like a real location).
func TestReusedClassWithoutParent(t *testing.T) {
	ps := &Parser{}
	ps.Parse([]byte("notify { 'a': }\nclass b { }\nclass c inherits b { }\n"))
	edited := []byte("notify { 'ab': }\nclass b { }\nclass c inherits b { }\n")
	f, fresh := ps.Parse(edited), Parse(edited)
	if ps.Reused != 2 {
		t.Fatalf("reused %d chunks, want 2", ps.Reused)
	}
	for i := 1; i < 3; i++ {
		got, want := f.Stmts[i].(*ClassDef), fresh.Stmts[i].(*ClassDef)
		if got.ParentLoc != want.ParentLoc || got.NameLoc != want.NameLoc {
			t.Errorf("class %s: reused ParentLoc %v NameLoc %v, fresh %v %v", got.Name, got.ParentLoc, got.NameLoc, want.ParentLoc, want.NameLoc)
		}
	}
}

// TestPlanApply: in a plan, Puppet's tasks mode reads `apply(targets) {
// catalog code }` (Bolt); the block is kept as the call's parameterless
// lambda, so a plan parses and its catalog code is a tree like any other.
// Outside a plan, `apply` is an ordinary name, and the block a syntax error.
func TestPlanApply(t *testing.T) {
	src := `plan mymod::deploy(TargetSpec $targets) {
  apply_prep($targets)
  $r = apply($targets, '_catch_errors' => true) {
    package { 'nginx': ensure => installed }
    service { 'nginx': require => Package['nginx'] }
  }
  if $r.ok { apply($targets) { notify { 'done': } } }
}
`
	f := mustParse(t, src)
	var applies []*Call
	var walk func(n Node)
	walk = func(n Node) {
		switch x := n.(type) {
		case *Block:
			for _, s := range x.Body {
				walk(s)
			}
		case *Binary:
			walk(x.Right)
		case *If:
			for _, s := range x.Then {
				walk(s)
			}
		case *Call:
			if x.Name == "apply" {
				applies = append(applies, x)
			}
		}
	}
	for _, s := range f.Stmts {
		walk(s)
	}
	if len(applies) != 2 {
		t.Fatalf("found %d apply blocks, want 2", len(applies))
	}
	if a := applies[0]; len(a.Args) != 2 || a.Lambda == nil || len(a.Lambda.Body) != 2 || len(a.Lambda.Params) != 0 ||
		src[a.Lambda.Pos] != '{' || src[a.Lambda.End-1] != '}' || a.End != a.Lambda.End {
		t.Errorf("first apply: %s", dump(a))
	}
	if msg := diffParsers([]byte(src)); msg != "" {
		t.Error(msg)
	}
	out := "apply($t) { notify { 'x': } }\n"
	if g := Parse([]byte(out)); len(g.Errors) == 0 {
		t.Errorf("apply block outside a plan parsed: %s", dump(g.Stmts[0]))
	}
	if msg := diffParsers([]byte(out)); msg != "" {
		t.Error(msg)
	}
}

// Node definitions as Puppet 7 reads them (each checked with `puppet
// parser validate`): a comma may end the list of names (ppouliot's
// kvm-compute.pp), `inherits` is parsed but refused at the parent's name,
// and it is never a node name.
func TestNodeNames(t *testing.T) {
	for _, c := range []struct{ src, errAt, msg string }{
		{"node 'a.example.com',\n  'b',\n  {\n  notify { 'hi': }\n}\n", "", ""},
		{"node 'a', /^db/, default, {}\n", "", ""},
		{"node 'a' inherits b {}\n", "b", "Node inheritance is not supported in Puppet >= 4.0.0."},
		{"node 'a', inherits b {}\n", "b", "Node inheritance is not supported in Puppet >= 4.0.0."},
		{"node inherits {}\n", "inherits", "Syntax error at 'inherits'"},
		{"node 'x' , , {}\n", ",", "Syntax error at ','"},
	} {
		for _, f := range []*File{Parse([]byte(c.src)), (&Parser{}).Parse([]byte(c.src))} {
			if c.msg == "" {
				if len(f.Errors) > 0 {
					t.Errorf("%q: errors %v, want none", c.src, f.Errors)
				}
				continue
			}
			if len(f.Errors) != 1 {
				t.Errorf("%q: errors %v, want one", c.src, f.Errors)
				continue
			}
			e := f.Errors[0]
			if got := c.src[e.Pos:e.End]; got != c.errAt || !strings.HasPrefix(e.Msg, c.msg) {
				t.Errorf("%q: %q at %q, want %q at %q", c.src, e.Msg, got, c.msg, c.errAt)
			}
		}
	}
}

// Class and define names Puppet 7's validator refuses (`puppet parser
// validate`: "Unacceptable name", at the keyword), a hyphenated name
// with segments after it lexed as one word as Puppet does.
func TestUnacceptableNames(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"class grid-site { }\n", "Unacceptable name. The name 'grid-site' is unacceptable as the name of a Host Class Definition"},
		{"class grid-site::repos { }\n", "Unacceptable name. The name 'grid-site::repos' is unacceptable as the name of a Host Class Definition"},
		{"class foo::_bar { }\n", "Unacceptable name. The name 'foo::_bar' is unacceptable as the name of a Host Class Definition"},
		{"define my-def() { }\n", "Unacceptable name. The name 'my-def' is unacceptable as the name of a 'define' expression"},
		{"class foo_Bar { }\n", ""},
		{"class foo::bar_baz { }\n", ""},
	} {
		for _, f := range []*File{Parse([]byte(c.src)), (&Parser{}).Parse([]byte(c.src))} {
			var got []string
			for _, e := range f.Errors {
				got = append(got, e.Msg)
			}
			if c.msg == "" && len(got) > 0 || c.msg != "" && (len(got) != 1 || got[0] != c.msg || f.Errors[0].Pos != 0) {
				t.Errorf("%q: errors %q, want %q at 0", c.src, got, c.msg)
			}
		}
	}
}

// A definition whose brackets all close keeps its body when a syntax
// error is in it, even with its statements at column 0 (fuel-infra's
// obs::nginx): one error, at Puppet's place, and the class with the
// statements that parse, not a class cut at the first column-0 line.
func TestRecoverBalancedBody(t *testing.T) {
	src := "class obs::nginx (\n  $key_file = '/tmp/a.key',\n) {\nfile { $key_file: ensure => file }\nfile { '/x': ensure => file }\nservice { 'nginx': subscribe => File ['/x'] }\n}\n"
	for _, f := range []*File{Parse([]byte(src)), (&Parser{}).Parse([]byte(src))} {
		if len(f.Errors) != 1 || src[f.Errors[0].Pos:f.Errors[0].End] != "[" {
			t.Fatalf("errors %v, want one at '['", f.Errors)
		}
		c, ok := f.Stmts[0].(*ClassDef)
		if len(f.Stmts) != 1 || !ok || c.Name != "obs::nginx" || len(c.Body) < 2 {
			t.Fatalf("statements %d, first %T; want the class obs::nginx with its two file resources", len(f.Stmts), f.Stmts[0])
		}
	}
}

// A parameter named twice in a class, define or function's list: Puppet
// 7's validator refuses the file at the second (`puppet parser validate`:
// "The parameter 'x' is declared more than once in the parameter list",
// line 1, columns 25, 21 and 16 here).
func TestDuplicateParameters(t *testing.T) {
	for _, c := range []struct{ src, at string }{
		{"class a($x = 1, $y = 2, $x = 3) { }\n", "$x = 3"},
		{"define d(String $x, $x) { }\n", "$x"},
		{"function f($a, $a) { 1 }\n", "$a"},
		{"class c($a, $b) { }\n", ""},
	} {
		for _, f := range []*File{Parse([]byte(c.src)), (&Parser{}).Parse([]byte(c.src))} {
			if c.at == "" {
				if len(f.Errors) > 0 {
					t.Errorf("%q: errors %v, want none", c.src, f.Errors)
				}
				continue
			}
			if len(f.Errors) != 1 || !strings.HasPrefix(f.Errors[0].Msg, "The parameter '") ||
				!strings.HasSuffix(f.Errors[0].Msg, "' is declared more than once in the parameter list") ||
				f.Errors[0].Pos != strings.LastIndex(c.src, c.at) {
				t.Errorf("%q: errors %v, want one at %d", c.src, f.Errors, strings.LastIndex(c.src, c.at))
			}
		}
	}
}

// The token a syntax error names, in Puppet's words (parser_support.rb
// names the token's value): each case checked with `puppet parser
// validate` (Puppet 7.23). faust64/puppet's vlc/manifests/rhel.pp, a
// resource body with a second title where an attribute goes, read
// "Syntax error at '"remi"'"; Puppet says 'remi'.
func TestSyntaxErrorTokenWords(t *testing.T) {
	for _, c := range []struct{ src, errAt, msg string }{
		{"yum { \"a\":\n  \"b\":\n}\n", `"b"`, "Syntax error at 'b'"},
		{"yum { 'a':\n  'b\\'c':\n}\n", `'b\'c'`, "Syntax error at 'b'c'"},
		{"yum { 'a':\n  $b:\n}\n", "$b", "Syntax error at 'b'"},
		{"yum { 'a':\n  \"x\\ty${b}\":\n}\n", `"x\ty${b}"`, "Syntax error at 'x\ty'"},
		{"yum { 'a':\n  \"${b}x\":\n}\n", `"${b}x"`, "Syntax error at ''"},
		{"yum { 'a':\n  /re/ :\n}\n", "/re/", "Syntax error at '(?-mix:re)'"},
		{"yum { 'a':\n  5 :\n}\n", "5", "Syntax error at '5'"},
		// '::' before neither a name nor a type name: a lexer error, at the
		// character after the '::' (edf-hpc/puppet-hpc's complex module)
		{"notify { 'a': message => $::a::b::::c }\n", ":", "Illegal fully qualified name"},
		{"notify { 'a': message => a:: }\n", " ", "Illegal fully qualified name"},
		{"$x = ::1\n", "1", "Illegal fully qualified name"},
		// in a class left unclosed: Puppet's lexer stops at the name
		// before its parser meets the unclosed brace (lokeshreddy4u's
		// dell/manifests/snmp.pp; validate: line 3, column 36)
		{"class dell::snmp {\n  case $x {\n    /^6.*/: { include  dell::snmp::6 }\n  }\n\n", "6", "Illegal fully qualified name"},
		// an else where no if is open is a keyword, not a resource type
		// (faust64/puppet network/manifests/interfaces/freebsd/generic.pp)
		{"if $a {\n  $b = 1\nelse {\n  $b = 3\n}\n", "else", "Syntax error at 'else'"},
		{"if $a {\n  if $a {\n    $b = 1\n  }\n  else {\n    $b = 2\n  }\nelse {\n  $b = 3\n}\n", "else", "Syntax error at 'else'"},
	} {
		for _, f := range []*File{Parse([]byte(c.src)), (&Parser{}).Parse([]byte(c.src))} {
			if len(f.Errors) != 1 {
				t.Errorf("%q: errors %v, want one", c.src, f.Errors)
				continue
			}
			e := f.Errors[0]
			if got := c.src[e.Pos:e.End]; got != c.errAt || !strings.HasPrefix(e.Msg, c.msg) {
				t.Errorf("%q: %q at %q, want %q at %q", c.src, e.Msg, got, c.msg, c.errAt)
			}
		}
	}
}

// A statement that is a comma separated list (Puppet's grammar reads
// `e1, e2` for a statement function's arguments without parentheses):
// Puppet's error at the first comma, or at what follows a trailing one
// (treydock's umd_hepcms_puppet_profiles osg/params.pp, simoneroselli's
// zmo-postgresql, ycl2045's idcos dcospkg.pp); each checked with
// puppet-order.
func TestCommaList(t *testing.T) {
	for _, c := range []struct{ src, errAt, msg string }{
		{"$a = 1, $b = 2\nnotify{$a:}\n", ",", "illegal comma separated argument list"},
		{"class p {\n  $x = 'a', $y = 'b',\n}\n", "}", "Syntax error at '}'"},
		{"class p {\n  $x = 'a',\n}\n", "}", "Syntax error at '}'"},
		{"class postgresql {\n\n    $psql_version,\n    $x = 1\n}\n", ",", "illegal comma separated argument list"},
		{"foo 'a', 'b'\n", ",", "attempt to pass argument list to the function 'foo' which cannot be called without parentheses"},
		{"notify{'a':}, notify{'b':}\n", ",", "illegal comma separated argument list"},
		{"$a = 1,\n", "", "Syntax error at end of input"},
		// Puppet refuses a block's comma list when it reduces the block
		// at its '}': before a syntax error after the block, after one
		// inside it (ycl2045's idcos/dcospkg.pp: parameters written as
		// statements, then `} {`)
		{"class d{\n  $a = 'x',\n  $b = 'y'\n  } {\n  x\n  package { ['a',\n 'b']: }\n}\n", ",", "illegal comma separated argument list"},
		{"class p {\n  $a = 1, $b = 2\n}\n{ x y\n", ",", "illegal comma separated argument list"},
		{"class p {\n  if $x {\n    $a = 1, $b = 2\n  }\n  notify { 'x' }\n}\n", ",", "illegal comma separated argument list"},
		{"class p {\n  $a = 1, $b = 2\n  notify { 'x' }\n}\n", "}", "Syntax error at '}'; expected ':'"},
	} {
		for _, f := range []*File{Parse([]byte(c.src)), (&Parser{}).Parse([]byte(c.src))} {
			if len(f.Errors) != 1 {
				t.Errorf("%q: errors %v, want one", c.src, f.Errors)
				continue
			}
			e := f.Errors[0]
			if got := c.src[e.Pos:e.End]; got != c.errAt || e.Msg != c.msg {
				t.Errorf("%q: %q at %q, want %q at %q", c.src, e.Msg, got, c.msg, c.errAt)
			}
		}
	}
}
