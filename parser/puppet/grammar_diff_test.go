package puppet

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// diffParsers parses every chunk of src with the grammar and with the
// hand parser it replaced and reports the first difference: a chunk one
// accepts and the other rejects, or different trees. Where both reject a
// chunk the wording may differ (participle's backtracking settles on its
// own token; parse_test.go and the fixtures pin the messages users meet).
func diffParsers(src []byte) string {
	toks := Lex(src)
	for _, r := range splitChunks(src, toks) {
		follow := &toks[r.b]
		a, ea := parseTokens(src, toks[r.a:r.b+1], follow)
		b, eb := parseChunkGrammar(src, toks[r.a:r.b+1], follow)
		if ea != nil || eb != nil {
			if ea == nil || eb == nil {
				return fmt.Sprintf("one parser rejects the chunk at %d: hand %v, grammar %v", toks[r.a].Pos, ea, eb)
			}
			continue
		}
		if !reflect.DeepEqual(a, b) {
			for i := range a {
				if i >= len(b) || !reflect.DeepEqual(a[i], b[i]) {
					x, y := dump(a[i]), "<none>"
					if i < len(b) {
						y = dump(b[i])
					}
					k := 0
					for k < len(x) && k < len(y) && x[k] == y[k] {
						k++
					}
					k = max(k-200, 0)
					return fmt.Sprintf("statement at %d differs:\n\thand    %.500s\n\tgrammar %.500s", a[i].Span().Pos, x[k:], y[k:])
				}
			}
			return fmt.Sprintf("chunk at %d: %d vs %d statements", toks[r.a].Pos, len(a), len(b))
		}
	}
	return ""
}

func dump(n Node) string {
	var sb strings.Builder
	Walk(n, func(x Node) bool {
		fmt.Fprintf(&sb, "%T%+v ", x, *x.Span())
		switch t := x.(type) {
		case *Name:
			sb.WriteString(t.Value)
		case *Str:
			sb.WriteString(t.Value)
		case *Binary:
			sb.WriteString(t.Op)
		}
		sb.WriteString("; ")
		return true
	})
	return sb.String()
}

func TestGrammarDifferentialCorpus(t *testing.T) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		t.Skip("set ORDERING_CORPUS")
	}
	files, differ := 0, 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".pp" {
			return nil
		}
		src, _ := os.ReadFile(p)
		files++
		if msg := diffParsers(src); msg != "" {
			differ++
			if differ <= 20 {
				t.Errorf("%s: %s", p, msg)
			}
		}
		return nil
	})
	t.Logf("%d files, %d differ", files, differ)
}

// diffSeeds are inputs on the edges of the grammar, valid or not.
var diffSeeds = []string{
	"notify { 'a': require => Notify['b'] }",
	"class a($x = 1) inherits b { include c contain d }",
	"$x = \"${a['b']} $c ${foo} ${bar(1)}\" @(E)\nx\nE\n",
	"Package <| tag == 'x' |> -> Service <<| |>> { a => 1 }",
	"case $x { /a/, 'b': { } default: { } } $y = $x ? { 1 => 2 }",
	"node /re/, default, web01.example.com inherits x { }",
	"notify { 'a':\n message => 'x'\nnotify { 'b': }",
	"class c {\n  file { '/tmp/x': ensure =>\n}\n",
	"\xff\xfe{{[[(",
	"include\nfoo\ninclude bar, baz\nnotice 'x'\ntag => 1",
	"$a = [1, 2][0]\n$b = [1, 2] [0]\nfoo([1])\n",
	"File { mode => '0644' } File['x'] { owner => root } Resource['file'] { 'y': }",
	"$t = 'file' $t { 'z': } @file { 'v': } @@file { 'e': }",
	"if $x == foo { notice(1) } elsif $y { } else { }\nunless $z { } else { }",
	"function f(Integer $a, *$rest) >> Integer { $a }\ntype T = Variant[String, Integer]",
	"plan p(String $x) { }\n$h = { 'a' => 1, b => [2], }\n$l = $h.map |$k, $v| { $v }.filter |$x| { $x }",
	"class { 'x': } -> class { 'y': } ~> Service['z'] <- Exec['a'] <~ File['b']",
	"$x = -$y * !$z % 3 + 1 << 2 and $a or $b in $c =~ /x/ != 4",
	"define d($x) { } d { 'a': x => 1; 'b': x => 2; }",
	"foo { 'a': * => $h, x +> [1] }",
	"$x = Integer('1') $y = Sensitive('s').unwrap",
	"}", "{", "notify {", "$x =", "class", "node {", "if $x {", "[1,",
}

// TestGrammarDifferentialSeeds: the grammar reads every seed, every test
// manifest and every fixture exactly as the hand parser does.
func TestGrammarDifferentialSeeds(t *testing.T) {
	inputs := seedInputs()
	for _, in := range inputs {
		if msg := diffParsers([]byte(in)); msg != "" {
			t.Errorf("%.80q: %s", in, msg)
		}
	}
	t.Logf("%d inputs", len(inputs))
}

// seedInputs: the seeds, every test manifest and every fixture (whole
// archives and each of their files).
func seedInputs() []string {
	inputs := append([]string(nil), diffSeeds...)
	for _, g := range []string{"../../analysis/puppet/testdata/*.txtar", "../../analysis/puppet/testdata/*/*.txtar", "../../lsp/testdata/*.txtar", "../../lsp/testdata/*/*.txtar"} {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			data, _ := os.ReadFile(p)
			inputs = append(inputs, string(data)) // the whole archive: manifests and all
			for _, part := range strings.Split(string(data), "\n-- ") {
				inputs = append(inputs, part)
			}
		}
	}
	return inputs
}

func FuzzGrammarDifferential(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if msg := diffParsers(src); msg != "" {
			t.Fatal(msg)
		}
	})
}
