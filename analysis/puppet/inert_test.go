package puppet_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
)

// A value typed into an attribute nothing reads (a file's mode, a
// notify's message) moves the last result instead of analysing again
// (the early cutoff for values): wherever the result judges an edit of a
// string literal inert, the moved result must be the fresh analysis's.
// The oracle cases hold collectors that query attributes, autorequire
// from owners and users, defined types and classes given parameters: an
// edit of what those read must be refused.
func TestInertEditsMoveResults(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "testdata/nodes/*.txtar", "testdata/oracle/*.pp"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	t.Run("fixtures", func(t *testing.T) { analysistest.CheckInertEdits(t, puppet.New, paths, 12) })
	// every kind of attribute the rules read, beside ones nothing reads
	values, _ := filepath.Glob("testdata/inert/*.txtar")
	t.Run("values", func(t *testing.T) { analysistest.CheckInertEdits(t, puppet.New, values, 600) })
}

// The same on a real repository, opt-in:
//
//	ORDERING_INERT_DIR=/work/corpus/puppet/puppetlabs-apache ORDERING_INERT_EDITS=100 \
//	  go test -run TestInertEditsMoveResultsIn -v ./analysis/puppet/
func TestInertEditsMoveResultsIn(t *testing.T) {
	dir := os.Getenv("ORDERING_INERT_DIR")
	if dir == "" {
		t.Skip("set ORDERING_INERT_DIR to a Puppet repository")
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_INERT_EDITS"))
	analysistest.CheckInertEditsIn(t, puppet.New, dir, max(n, 10))
}

// A statement half typed into a class (text the parser drops, keeping
// the body's other statements) moves the last result instead of
// analysing again, its syntax errors read again: wherever the result
// follows a keystroke, it must be the fresh analysis's.
func TestDroppedEditsMoveResults(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "testdata/nodes/*.txtar", "testdata/oracle/*.pp", "testdata/inert/*.txtar"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	fragments := []string{
		"  file { '/tmp/typed' \n", "  notify { 'typed': message => \n", "  package { \n",
		"  exec { 'e': command => '/bin/true' \n", "  $typed = [\n", "  if $typed \n",
		"  Notify['a'] -> \n", "  include \n", "  user { 'u': groups => ['a', \n", "file { '/top' \n",
		// states Puppet refuses for having no effect (a resource's first
		// keystrokes, parser/puppet effects.go)
		"  notif\n", "  notify {}\n", "  $typed\n", "  File\n",
	}
	// ORDERING_DROPPED_EDITS=n: n statements begun per fixture instead of 2
	n, _ := strconv.Atoi(os.Getenv("ORDERING_DROPPED_EDITS"))
	analysistest.CheckDroppedEdits(t, puppet.New, paths, fragments, max(n, 2), 5)
}

// An attribute line nobody reads, added to a resource or taken from it
// (whole, or typed as an editor that pairs quotes sends it), moves the
// last result instead of analysing again; the keystroke of the quotes
// that makes `mode => ”` an attribute included. Lines a rule reads, or
// whose value reads a variable, must be analysed, as must a duplicate.
func TestAttrEditsMoveResults(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "testdata/nodes/*.txtar", "testdata/oracle/*.pp", "testdata/inert/*.txtar"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	lines := []analysistest.AttrLine{
		{Name: "mode", Value: "'0644'"}, {Name: "content", Value: `"typed"`}, {Name: "replace", Value: "false"},
		{Name: "provider", Value: "shell"}, {Name: "mode", Value: "0644"}, {Name: "ensure", Value: "'present'"},
		{Name: "backup", Value: "['a', 'b']"}, {Name: "message", Value: "'typed'"}, {Name: "withpath", Value: "true"},
		{Name: "require", Value: "File['/x']", Never: true}, {Name: "owner", Value: "'root'", Never: true},
		{Name: "path", Value: "'/p'", Never: true}, {Name: "before", Value: "'Notify[n]'", Never: true},
		{Name: "message", Value: "$x", Never: true}, {Name: "message", Value: `"${x}"`, Never: true},
		{Name: "tag", Value: "'web'", Never: true}, {Name: "alias", Value: "'a'", Never: true},
		{Name: "mode", Value: "[$x]", Never: true}, {Name: "mode", Value: "'a'.upcase", Never: true},
	}
	read := []string{"require", "before", "notify", "subscribe", "owner", "group", "path", "command", "tag", "alias",
		"name", "user", "cwd", "unless", "onlyif", "target", "stage", "title", "groups", "gid"}
	// ORDERING_ATTR_EDITS=n: n edits per fixture instead of 8
	n, _ := strconv.Atoi(os.Getenv("ORDERING_ATTR_EDITS"))
	analysistest.CheckAttrEdits(t, puppet.New, paths, lines, read, max(n, 8))
}

// An assignment of a literal to a variable nobody reads, added to a body
// or taken out (whole, or typed as an editor that pairs quotes sends
// it), or its value typed over, moves the last result instead of
// analysing again (followassign.go), its value a literal or one that
// only reads variables. One whose value calls a function or computes,
// or that assigns a variable Puppet sets, must be analysed.
func TestAssignEditsMoveResults(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "testdata/nodes/*.txtar", "testdata/oracle/*.pp", "testdata/inert/*.txtar"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	lines := []analysistest.AssignLine{
		{Name: "typed_dir", Value: "'/srv/typed'"}, {Name: "typed_port", Value: "8080"}, {Name: "typed_flag", Value: "true"},
		{Name: "typed_list", Value: "['a', 'b']"}, {Name: "typed_word", Value: "present"}, {Name: "typed_msg", Value: `"typed"`},
		{Name: "typed_ref", Value: "$x"}, {Name: "typed_str", Value: `"${x}/${facts['os']['family']}"`},
		{Name: "typed_hash", Value: "{ 'a' => $x, 'b' => [1, $facts['x']] }"},
		{Name: "typed_lookup", Value: "lookup('x')", Never: true}, {Name: "typed_sum", Value: "$x + 1", Never: true},
		{Name: "typed_sel", Value: "$x ? { 'a' => 1, default => 2 }", Never: true}, {Name: "typed_arr", Value: "[$x, foo()]", Never: true},
		{Name: "title", Value: "'t'", Never: true}, {Name: "facts", Value: "'f'", Never: true},
		{Name: "typed_call", Value: "'a'.upcase", Never: true},
		// names the fixtures read: followed only where nothing does
		{Name: "mode", Value: "'0600'"}, {Name: "flavor", Value: "'typed'"}, {Name: "ensure", Value: "absent"},
		{Name: "x", Value: "'typed'"}, {Name: "pkg", Value: "'typed'"}, {Name: "docroot", Value: "'/typed'"}, {Name: "on", Value: "false"},
	}
	// ORDERING_ASSIGN_EDITS=n: n edits per fixture instead of 6
	n, _ := strconv.Atoi(os.Getenv("ORDERING_ASSIGN_EDITS"))
	// where the names above are read: every body, many times over
	for i := 0; i < 12; i++ {
		paths = append(paths, "testdata/inert/assignments.txtar", "testdata/inert/hiera_params.txtar")
	}
	analysistest.CheckAssignEdits(t, puppet.New, paths, lines, max(n, 6))
}
