package lsp_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A value nothing reads (a file's mode), typed over, is not analysed:
// the last result moves through the edit (the early cutoff for values,
// analysis.Result.Follow), and every answer is a fresh server's on the
// same text. A value a rule reads (the owner, which autorequires the
// user) is analysed again.
func TestValueEditIsNotAnalysed(t *testing.T) {
	root := t.TempDir()
	text := "file { '/etc/conf':\n  mode   => '0644',\n  owner  => 'deploy',\n  notify => Service['svc'],\n}\nservice { 'svc': }\nuser { 'deploy': }\nnotify { 'x': require => File['/nope'] }\n"
	writeFiles(t, root, map[string]string{"site.pp": text})
	uri := source.PathToURI(filepath.Join(root, "site.pp"))
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{counted{puppet.New().(*puppet.System), &n}}, root, nil)
	c.Open(uri, "puppet", text)
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 1 })
	c.Settle(uri)
	before := n.Load()
	hover := func(c *lsptest.Client, line, char int) string { return hoverJSON(t, c, uri, line, char) }

	// '0644' -> '0600': "44" typed over by "00"
	c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 1, Character: 14}, End: lsptest.Position{Line: 1, Character: 16}}, "0000")
	edited := strings.Replace(text, "'0644'", "'060000'", 1)
	c.Settle(uri)
	if after := n.Load(); after != before {
		t.Errorf("a file's mode typed over was analysed: %d analyses before it, %d after", before, after)
	}
	got := c.Diagnostics(uri)
	movedHover := hover(c, 0, 9) // File['/etc/conf']: the user before it, the service it refreshes
	if !strings.Contains(movedHover, "User[deploy]") {
		t.Errorf("hover of the file after the edit does not name the user it autorequires: %s", movedHover)
	}

	fresh, _ := lsptest.Start(t, []analysis.System{puppet.New()}, root, nil)
	fresh.Open(uri, "puppet", edited)
	want := fresh.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 1 })
	fresh.Settle(uri)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics after the edit:\n got %+v\nwant %+v (a fresh server's)", got, want)
	}
	for _, at := range [][2]int{{0, 9}, {5, 12}, {6, 8}, {7, 11}} {
		if g, w := hover(c, at[0], at[1]), hover(fresh, at[0], at[1]); g != w {
			t.Errorf("hover at %d:%d after the edit:\n got %s\nwant %s (a fresh server's)", at[0], at[1], g, w)
		}
	}

	// the owner is read (autorequire): analysed, and the user no longer comes first
	c.Edit(uri, 3, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 12}, End: lsptest.Position{Line: 2, Character: 18}}, "nobody")
	c.Settle(uri)
	if n.Load() == before {
		t.Errorf("an edit of the owner was not analysed")
	}
	if h := hover(c, 0, 9); strings.Contains(h, "autorequire") {
		t.Errorf("hover of the file after its owner changed still shows an autorequire: %s", h)
	}
}

// A resource typed into a class, keystroke by keystroke as an editor
// sends them (its braces closed for the user): until it parses, the class
// reads as before with a syntax error, and the last result follows each
// keystroke instead of an analysis; its diagnostics and hovers are a
// fresh server's. The keystroke that completes it is analysed.
func TestHalfTypedStatementIsNotAnalysed(t *testing.T) {
	ts := startTyping(t, "class web {\n  file { '/etc/web': ensure => directory }\n  notify { 'n': require => File['/etc/web'] }\n}\n")
	c, uri, n, typeAt, root := ts.c, ts.uri, ts.n, ts.typeAt, ts.root
	// `package {  }` parses (an empty resource expression), and so does the
	// class without it once the quotes make it a syntax error: analysed
	typeAt(1, 0, "  package {  }\n")
	typeAt(1, 12, "''") // the quotes, paired by the editor
	before := n.Load()
	for i, ch := range "nginx" {
		typeAt(1, 13+i, string(ch))
	}
	if after := n.Load(); after != before {
		t.Errorf("a title typed into a resource half typed was analysed: %d analyses before it, %d after", before, after)
	}
	got := c.Diagnostics(uri)
	hover := func(c *lsptest.Client, line, char int) string { return hoverJSON(t, c, uri, line, char) }
	fresh, _ := lsptest.Start(t, []analysis.System{puppet.New()}, root, nil)
	fresh.Open(uri, "puppet", *ts.text)
	fresh.Settle(uri)
	want := fresh.Diagnostics(uri)
	if len(want) != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics with the resource half typed:\n got %+v\nwant %+v (a fresh server's, one syntax error)", got, want)
	}
	for _, at := range [][2]int{{2, 11}, {3, 13}, {0, 7}} {
		if g, w := hover(c, at[0], at[1]), hover(fresh, at[0], at[1]); g != w {
			t.Errorf("hover at %d:%d with the resource half typed:\n got %s\nwant %s (a fresh server's)", at[0], at[1], g, w)
		}
	}
	typeAt(1, 19, ":")
	if n.Load() == before {
		t.Errorf("the keystroke that completes the resource was not analysed")
	}
	if d := c.Diagnostics(uri); len(d) != 0 {
		t.Errorf("diagnostics with the resource complete: %+v", d)
	}
}

// An attribute typed into a resource the class already has, as an editor
// that pairs quotes sends it: until it parses, the parser reads the
// resource without that line, so the resource keeps its lens and the
// last result follows each keystroke; the quotes that make it an
// attribute add one nobody reads (a mode: followattr.go), its value is a
// value nobody reads, and the comma moves the body's end: none of it is
// analysed, and every answer is a fresh server's. Taking the line out
// again is not analysed either; an owner typed the same way is (a rule
// reads it: autorequire).
func TestAttributeTypedIsNotAnalysed(t *testing.T) {
	ts := startTyping(t, "class web {\n  file { '/etc/web':\n    ensure => directory,\n  }\n  notify { 'n': require => File['/etc/web'] }\n}\n")
	c, uri, n, typeAt := ts.c, ts.uri, ts.n, ts.typeAt
	lensLines := func(c *lsptest.Client) []int { return lensLinesOf(t, c, uri) }
	before := n.Load()
	typeAt(2, 24, "\n    ") // Enter at the end of the ensure line
	for i, ch := range "mode =>" {
		typeAt(3, 4+i, string(ch))
	}
	if ls := lensLines(c); !slices.Contains(ls, 1) {
		t.Errorf("lenses on lines %v while the attribute is typed: the resource on line 1 lost its lens", ls)
	}
	typeAt(3, 11, " ")
	typeAt(3, 12, "''") // the quotes, paired by the editor: the attribute parses
	for i, ch := range "0644" {
		typeAt(3, 13+i, string(ch))
	}
	typeAt(3, 18, ",")
	if after := n.Load(); after != before {
		t.Errorf("a mode typed into a resource, its quotes and its comma were analysed: %d analyses before, %d after", before, after)
	}
	if !strings.Contains(*ts.text, "    ensure => directory,\n    mode => '0644',\n  }") {
		t.Fatalf("the text typed: %q", *ts.text)
	}
	same := func(when string) {
		t.Helper()
		ts.sameAsFresh(t, when, [2]int{1, 10}, [2]int{3, 6}, [2]int{4, 2}, [2]int{5, 13}, [2]int{0, 7})
	}
	same("after the attribute")
	// the line taken out whole (selected, deleted)
	*ts.version++
	c.Edit(uri, *ts.version, lsptest.Range{Start: lsptest.Position{Line: 3, Character: 0}, End: lsptest.Position{Line: 4, Character: 0}}, "")
	*ts.text = strings.Replace(*ts.text, "    mode => '0644',\n", "", 1)
	c.Settle(uri)
	if after := n.Load(); after != before {
		t.Errorf("an attribute line taken out was analysed: %d analyses before, %d after", before, after)
	}
	same("after the line was taken")
	// an owner: autorequire reads it
	typeAt(2, 24, "\n    ")
	for i, ch := range "owner => " {
		typeAt(3, 4+i, string(ch))
	}
	before = n.Load()
	typeAt(3, 13, "''")
	if n.Load() == before {
		t.Errorf("the quotes that make an owner an attribute were not analysed")
	}
}

// TestAssignmentTypedIsNotAnalysed: a variable assigned a literal typed
// into a class before any code reads it, as VS Code sends it (Enter,
// the name, the quotes paired, the value): `$ssl_dir =` alone does not
// parse (the class reads as before), the quotes make an assignment
// nobody reads (followassign.go), the value is typed over: none of it
// is analysed, and every answer is a fresh server's; taking the line out
// is not analysed either. The same typed where the class reads the name
// is.
func TestAssignmentTypedIsNotAnalysed(t *testing.T) {
	ts := startTyping(t, "class web {\n  file { '/etc/web':\n    ensure => directory,\n  }\n  notify { \"n ${port}\": require => File['/etc/web'] }\n}\n")
	c, uri, n, typeAt := ts.c, ts.uri, ts.n, ts.typeAt
	before := n.Load()
	typeAt(4, 53, "\n  ") // Enter at the end of the notify's line
	for i, ch := range "$ssl_dir = " {
		typeAt(5, 2+i, string(ch))
	}
	typeAt(5, 13, "''")
	for i, ch := range "/srv" {
		typeAt(5, 14+i, string(ch))
	}
	if after := n.Load(); after != before {
		t.Errorf("an assignment nobody reads typed into a class was analysed: %d analyses before, %d after", before, after)
	}
	if !strings.Contains(*ts.text, "File['/etc/web'] }\n  $ssl_dir = '/srv'\n}") {
		t.Fatalf("the text typed: %q", *ts.text)
	}
	ts.sameAsFresh(t, "after the assignment", [2]int{1, 10}, [2]int{4, 13}, [2]int{5, 4})
	*ts.version++
	c.Edit(uri, *ts.version, lsptest.Range{Start: lsptest.Position{Line: 5, Character: 0}, End: lsptest.Position{Line: 6, Character: 0}}, "")
	*ts.text = strings.Replace(*ts.text, "  $ssl_dir = '/srv'\n", "", 1)
	c.Settle(uri)
	if after := n.Load(); after != before {
		t.Errorf("an assignment nobody reads taken out was analysed: %d analyses before, %d after", before, after)
	}
	ts.sameAsFresh(t, "after the line was taken", [2]int{1, 10}, [2]int{4, 13})
	// before the file: `$` and the name are dropped as the class is read
	// (parser/puppet: the line ends its statement); from "=" until the
	// quotes, `$ssl_dir = file { ... }` assigns the resource (what Puppet
	// reads too), and is analysed
	typeAt(0, 11, "\n  ")
	for i, ch := range "$ssl_dir = " {
		n0 := n.Load()
		typeAt(1, 2+i, string(ch))
		if n.Load() != n0 && i < len("$ssl_dir ") {
			t.Errorf("%q typed before a resource was analysed (the class reads as before it)", lineOf(*ts.text, 1))
		}
	}
	typeAt(1, 13, "''") // (analysed: the result it would follow is the one that assigned the resource)
	ts.sameAsFresh(t, "after an assignment before a resource", [2]int{2, 10}, [2]int{5, 13})
	*ts.version++
	c.Edit(uri, *ts.version, lsptest.Range{Start: lsptest.Position{Line: 0, Character: 11}, End: lsptest.Position{Line: 1, Character: 15}}, "")
	*ts.text = strings.Replace(*ts.text, "\n  $ssl_dir = ''", "", 1)
	c.Settle(uri)
	// $port, before the notify whose title reads it
	typeAt(0, 11, "\n  ")
	for i, ch := range "$port = " {
		typeAt(1, 2+i, string(ch))
	}
	before = n.Load()
	typeAt(1, 10, "''")
	if n.Load() == before {
		t.Errorf("the quotes that assign a variable the class reads were not analysed")
	}
	ts.sameAsFresh(t, "after an assignment read", [2]int{2, 10}, [2]int{5, 13})
}

// TestParameterTypedIsNotAnalysed: a class parameter nobody reads typed
// into the class's parameter list as VS Code sends it (Enter, the type
// and name, " = ", the quotes paired, the default) is not analysed
// (followassign.go), nor is taking it out; every answer is a fresh
// server's. The default of a parameter the body reads, typed over, is.
func TestParameterTypedIsNotAnalysed(t *testing.T) {
	ts := startTyping(t, "class web (\n  String $port = '80',\n) {\n  notify { \"n ${port}\": }\n}\n")
	c, uri, n, typeAt := ts.c, ts.uri, ts.n, ts.typeAt
	before := n.Load()
	typeAt(1, 22, "\n  ")                     // Enter at the end of the port's line
	for i, ch := range "String $ssl_dir = " { // (`String $s` is a parameter, each key of its name another)
		typeAt(2, 2+i, string(ch))
	}
	typeAt(2, 20, "''")
	for i, ch := range "/srv" {
		typeAt(2, 21+i, string(ch))
	}
	typeAt(2, 26, ",")
	if after := n.Load(); after != before {
		t.Errorf("a parameter nobody reads typed into a class was analysed: %d analyses before, %d after", before, after)
	}
	if !strings.Contains(*ts.text, "  String $port = '80',\n  String $ssl_dir = '/srv',\n) {") {
		t.Fatalf("the text typed: %q", *ts.text)
	}
	ts.sameAsFresh(t, "after the parameter", [2]int{4, 12})
	*ts.version++
	c.Edit(uri, *ts.version, lsptest.Range{Start: lsptest.Position{Line: 2, Character: 0}, End: lsptest.Position{Line: 3, Character: 0}}, "")
	*ts.text = strings.Replace(*ts.text, "  String $ssl_dir = '/srv',\n", "", 1)
	c.Settle(uri)
	if after := n.Load(); after != before {
		t.Errorf("a parameter nobody reads taken out was analysed: %d analyses before, %d after", before, after)
	}
	ts.sameAsFresh(t, "after the parameter was taken", [2]int{3, 12})
	typeAt(1, 18, "8") // '808': the notify's title reads it
	if n.Load() == before {
		t.Errorf("the default of a parameter the class reads, typed over, was not analysed")
	}
	ts.sameAsFresh(t, "after the default of one read", [2]int{3, 12})
}

// typing is a server (its Puppet analyses counted) on a workspace whose
// class web (modules/web/manifests/init.pp, open) holds class, and a way
// to type into it as an editor does, one insertion at a time, each
// settled.
type typing struct {
	c       *lsptest.Client
	root    string
	uri     string
	n       *atomic.Int32
	text    *string
	version *int // of the document the client last sent
	typeAt  func(line, char int, s string)
}

func startTyping(t *testing.T, class string) typing {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"site.pp": "include web\n", "modules/web/manifests/init.pp": class})
	ts := typing{root: root, uri: source.PathToURI(filepath.Join(root, "modules/web/manifests/init.pp")), n: &atomic.Int32{}, text: &class}
	ts.c, _ = lsptest.Start(t, []analysis.System{counted{puppet.New().(*puppet.System), ts.n}}, root, nil)
	ts.c.Open(ts.uri, "puppet", class)
	ts.c.Settle(ts.uri)
	version := 1
	ts.version = &version
	ts.typeAt = func(line, char int, s string) {
		version++
		ts.c.Edit(ts.uri, version, lsptest.Range{Start: lsptest.Position{Line: line, Character: char}, End: lsptest.Position{Line: line, Character: char}}, s)
		lines := strings.SplitAfter(*ts.text, "\n")
		lines[line] = lines[line][:char] + s + lines[line][char:]
		*ts.text = strings.Join(lines, "")
		ts.c.Settle(ts.uri)
	}
	return ts
}

// TestResourceTypedIsAnalysedOnceItParses: a resource typed into a class
// key by key, as VS Code sends it (braces and quotes paired), passes
// through states Puppet refuses (`n` ... `notify`, a bare word without
// effect; `notify {}`, a resource without a title; `notify { 'x' }`, a
// syntax error). The class reads as before in each (the parser drops the
// statement), so none is analysed; the colon that makes it a resource is.
// Each state's diagnostics, lenses and hovers are a fresh server's.
func TestResourceTypedIsAnalysedOnceItParses(t *testing.T) {
	ts := startTyping(t, "class web {\n  file { '/etc/web':\n    ensure => directory,\n  }\n}\n")
	c, uri, n, typeAt := ts.c, ts.uri, ts.n, ts.typeAt
	same := func(when string) { t.Helper(); ts.sameAsFresh(t, when, [2]int{1, 10}, [2]int{4, 4}, [2]int{0, 7}) }
	before := n.Load()
	typeAt(3, 3, "\n  ") // Enter after the file's closing brace
	for i, ch := range "notify" {
		typeAt(4, 2+i, string(ch))
	}
	same("after a bare word")
	if len(c.Diagnostics(uri)) != 1 {
		t.Errorf("a bare word in a class: diagnostics %+v, want Puppet's one error", c.Diagnostics(uri))
	}
	typeAt(4, 8, " ")
	typeAt(4, 9, "{}")
	same("after a resource without a title")
	typeAt(4, 10, " ")
	typeAt(4, 11, "''")
	for i, ch := range "web" {
		typeAt(4, 12+i, string(ch))
	}
	same("after a title without its colon")
	if after := n.Load(); after != before {
		t.Errorf("a resource typed, before it parses, was analysed: %d analyses before, %d after", before, after)
	}
	typeAt(4, 16, ":")
	if !strings.Contains(*ts.text, "  }\n  notify { 'web':}\n}\n") {
		t.Fatalf("the text typed: %q", *ts.text)
	}
	if n.Load() == before {
		t.Errorf("the colon that makes the resource was not analysed")
	}
	same("after the colon")
	if len(c.Diagnostics(uri)) != 0 {
		t.Errorf("diagnostics %+v once the resource parses", c.Diagnostics(uri))
	}
}

// sameAsFresh holds the typing server's diagnostics, lenses and hovers
// (at the lines and characters given) of the class to a fresh server's
// on the same text.
func (ts typing) sameAsFresh(t *testing.T, when string, hovers ...[2]int) {
	t.Helper()
	fresh, _ := lsptest.Start(t, []analysis.System{puppet.New()}, ts.root, nil)
	fresh.Open(ts.uri, "puppet", *ts.text)
	fresh.Settle(ts.uri)
	c, uri := ts.c, ts.uri
	if got, want := c.Diagnostics(uri), fresh.Diagnostics(uri); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics %s:\n got %+v\nwant %+v (a fresh server's)", when, got, want)
	}
	if got, want := lensLinesOf(t, c, uri), lensLinesOf(t, fresh, uri); !reflect.DeepEqual(got, want) {
		t.Errorf("lenses %s on lines %v, a fresh server's on %v", when, got, want)
	}
	for _, at := range hovers {
		if g, w := hoverJSON(t, c, uri, at[0], at[1]), hoverJSON(t, fresh, uri, at[0], at[1]); g != w {
			t.Errorf("hover at %d:%d %s:\n got %s\nwant %s (a fresh server's)", at[0], at[1], when, g, w)
		}
	}
}

// lensLinesOf is the lines of the document's code lenses.
func lensLinesOf(t *testing.T, c *lsptest.Client, uri string) []int {
	var ls []struct{ Range lsptest.Range }
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &ls); err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range ls {
		out = append(out, l.Range.Start.Line)
	}
	return out
}

// lineOf is line i of text.
func lineOf(text string, i int) string {
	lines := strings.Split(text, "\n")
	if i < len(lines) {
		return lines[i]
	}
	return ""
}
