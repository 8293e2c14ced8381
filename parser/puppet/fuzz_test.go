package puppet

import "testing"

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"notify { 'a': require => Notify['b'] }",
		"class a($x = 1) inherits b { include c contain d }",
		"$x = \"${a['b']} $c\" @(E)\nx\nE\n",
		"Package <| tag == 'x' |> -> Service <<| |>> { a => 1 }",
		"case $x { /a/, 'b': { } default: { } } $y = $x ? { 1 => 2 }",
		"node /re/, default inherits x { }",
		"notify { 'a':\n message => 'x'\nnotify { 'b': }",
		"\xff\xfe{{[[(",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file := Parse(src)
		for _, e := range file.Errors {
			if e.Pos < 0 || e.End > len(src) || e.Pos > e.End {
				t.Fatalf("error span %d-%d out of %d", e.Pos, e.End, len(src))
			}
		}
		for _, s := range file.Stmts {
			Walk(s, func(n Node) bool {
				sp := n.Span()
				if sp.Pos < 0 || sp.End > len(src) || sp.Pos > sp.End {
					t.Fatalf("%T span %d-%d out of %d", n, sp.Pos, sp.End, len(src))
				}
				return true
			})
		}
	})
}
