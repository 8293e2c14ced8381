package puppet

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What the early cutoff for values judges inert, edit by edit: each case
// is the old text with the edit written ⟦old¦new⟧.
func TestInertJudgement(t *testing.T) {
	cases := []struct {
		edit    string
		queried string // an attribute a collector of the workspace queries
		want    bool
	}{
		{"file { '/x': mode => '06⟦¦4⟧44' }", "", true},
		{"notify { 'm': message => 'hello⟦¦ world⟧' }", "", true},
		{"notify { 'm': message => \"hello⟦¦ world⟧\" }", "", true},
		{"class c {\n  if $x { package { 'p': install_options => '--⟦a¦b⟧' } }\n}", "", true},
		{"file { '/x': mode => '06⟦¦4⟧44' }", "mode", false},                 // File <| mode == ... |> reads it
		{"file { '/x': owner => 'ro⟦¦o⟧t' }", "", false},                     // autorequire reads it
		{"exec { 'e': command => '/bin/⟦a¦b⟧' }", "", false},                 // namevar, autorequire
		{"file { '/x': notify => 'Service[⟦a¦b⟧]' }", "", false},             // a relationship written as a string
		{"class { 'web': port => '8⟦0¦1⟧' }", "", false},                     // a parameter the body reads
		{"web::vhost { 'w': docroot => '/⟦a¦b⟧' }", "", false},               // a defined type's parameter
		{"file { '⟦/x¦/y⟧': mode => '0644' }", "", false},                    // a title
		{"File { mode => '06⟦¦4⟧44' }", "", false},                           // defaults: not a declaration
		{"notify { 'm': message => \"a⟦$x¦⟧\" }", "", false},                 // the old value read a variable
		{"notify { 'm': message => \"a⟦¦$x⟧\" }", "", false},                 // the new one does
		{"notify { 'm': message => 'a⟦'¦⟧b' }", "", false},                   // the old text did not parse so
		{"notify { 'm': message => 'a⟦¦'⟧b' }", "", false},                   // the new one does not
		{"notify { 'm': message => 'a⟦¦\n⟧b' }", "", false},                  // a line more
		{"notify { 'm': message => 'ab⟦' }¦⟧' }", "", false},                 // across the closing quote
		{"notify { 'm': message => [⟦'a'¦'b'⟧] }", "", false},                // an array's element
		{"notify { 'broken' \nfile { '/x': mode => '06⟦¦4⟧44' }", "", true},  // a syntax error in another statement
		{"file { '/x': mode => '06⟦¦4⟧44' \nnotify { 'broken' }", "", false}, // in the same one
		{"$v = 'a'\nnotify { 'm': message => $v, withpath => 'f⟦¦x⟧' }", "", true},
		{"file { '/x': ensure => pres⟦¦e⟧ }", "", true}, // a bare word, at its end: the body's end moves
		{"file { '/x': mode => 06⟦¦4⟧, ensure => file }", "", true},
		{"notify { 'm': withpath => tru⟦¦e⟧ }", "", true},
		{"file { '/x': ensure => i⟦¦f⟧ }", "", false},   // a keyword
		{"file { '/x': ensure => a⟦¦::b⟧ }", "", false}, // a class's name
	}
	for _, c := range cases {
		i := strings.Index(c.edit, "⟦")
		bar := strings.Index(c.edit, "¦")
		j := strings.Index(c.edit, "⟧")
		oldText := c.edit[:i] + c.edit[i+len("⟦"):bar] + c.edit[j+len("⟧"):]
		curText := c.edit[:i] + c.edit[bar+len("¦"):j] + c.edit[j+len("⟧"):]
		old := source.NewFile("file:///w/site.pp", "/w/site.pp", []byte(oldText))
		cur := source.NewFile("file:///w/site.pp", "/w/site.pp", []byte(curText))
		j1 := &followJudge{sys: New().(*System), queried: map[string]bool{}}
		if c.queried != "" {
			j1.queried[c.queried] = true
		}
		if got, _ := j1.inert(old, cur, analysis.NewShift(old.URI, old.Text, cur.Text)); got != c.want {
			t.Errorf("%q -> %q: inert %v, want %v", oldText, curText, got, c.want)
		}
	}
}

// puppetfileWords are the Puppetfile's methods world.go switches on by
// the same `.name`: not attributes.
var puppetfileWords = map[string]bool{"mod": true, "moduledir": true}

// Every attribute name this package's code asks a resource for is one
// the early cutoff for values refuses (readAttrs): a rule that starts
// reading an attribute must not leave edits of its value moved unread.
// It reads the package's source: calls of attr/anyAttr and relValues
// with a literal name, comparisons and switches on an attr's name, the
// namevars, and the metaparameters.
func TestInertReadAttrs(t *testing.T) {
	fset := token.NewFileSet()
	paths, _ := filepath.Glob("*.go")
	read := map[string]string{} // name -> where
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		lit := func(e ast.Expr) (string, bool) {
			b, ok := e.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(b.Value)
			return s, err == nil && s != ""
		}
		isName := func(e ast.Expr) bool { // x.name, as[i].name
			s, ok := e.(*ast.SelectorExpr)
			return ok && s.Sel.Name == "name"
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				var fn string
				switch x := n.Fun.(type) {
				case *ast.SelectorExpr:
					fn = x.Sel.Name
				case *ast.Ident:
					fn = x.Name
				}
				switch fn {
				case "attr", "anyAttr":
					if len(n.Args) == 1 {
						if s, ok := lit(n.Args[0]); ok {
							read[s] = fset.Position(n.Pos()).String()
						}
					}
				case "relValues":
					if len(n.Args) == 3 {
						if s, ok := lit(n.Args[2]); ok {
							read[s] = fset.Position(n.Pos()).String()
						}
					}
				}
			case *ast.BinaryExpr:
				if n.Op == token.EQL && isName(n.X) {
					if s, ok := lit(n.Y); ok {
						read[s] = fset.Position(n.Pos()).String()
					}
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isName(n.Tag) {
					for _, c := range n.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							if s, ok := lit(e); ok {
								read[s] = fset.Position(e.Pos()).String()
							}
						}
					}
				}
			}
			return true
		})
	}
	for _, nv := range namevar {
		read[nv] = "namevar"
	}
	for mp := range metaparams {
		read[mp] = "metaparams"
	}
	for _, mp := range metaNames {
		read[mp] = "metaNames"
	}
	if len(read) < 15 {
		t.Fatalf("found only %d attribute names read: the search no longer sees the code (%v)", len(read), read)
	}
	for name, where := range read {
		if !readAttrs[name] && !puppetfileWords[name] {
			t.Errorf("%s reads attribute %q, which the early cutoff for values does not know as read (readAttrs)", where, name)
		}
	}
}
