package puppet

import (
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What the follow of an attribute line judges (followattr.go), edit by
// edit: each case is the old text with the edit written ⟦old¦new⟧, in a
// class's file (no code of its own) unless top says otherwise.
func TestAttrJudgement(t *testing.T) {
	cases := []struct {
		edit    string
		queried string // an attribute a collector of the workspace queries
		top     bool   // the file has code of its own
		want    bool
	}{
		// followed: added, taken, typed as an editor pairs quotes
		{"class c {\n  file { '/x':\n    ensure => file,\n⟦¦    mode => '0644',\n⟧  }\n}\n", "", false, true},
		{"class c {\n  file { '/x':\n    ensure => file,\n⟦    mode => '0644',\n¦⟧  }\n}\n", "", false, true},
		{"class c {\n  file { '/x':\n    ensure => file,\n    mode => ⟦¦''⟧\n  }\n}\n", "", false, true},
		{"class c {\n  file { '/x':\n    ensure => file,\n    mode => ⟦''¦⟧\n  }\n}\n", "", false, true},
		{"class c {\n  file { '/x':\n    ensure => file,\n    mode => ''⟦¦,⟧\n  }\n}\n", "", false, true},
		{"class c {\n  file { '/x': ensure => file⟦¦, mode => 0644⟧ }\n}\n", "", false, true},
		{"class c {\n  file { '/x': ⟦ensure => file¦⟧ }\n}\n", "", false, true},
		{"class c {\n  file { '/x':⟦¦ mode => 0644,⟧ ensure => file }\n}\n", "", false, true},
		{"class c {\n  notify { 'n':⟦¦ withpath => true,⟧ }\n}\n", "", false, true},
		{"class c {\n  notify { 'n':⟦¦ message => \"plain\",⟧ }\n}\n", "", false, true},
		{"class c {\n  package { 'p':⟦¦ install_options => ['-q'],⟧ }\n}\n", "", false, true},
		{"class c {\n  file { '/x':⟦¦ backup => ['a', 2, true],⟧ }\n}\n", "", false, true},
		{"class c {\n  @file { '/x':⟦¦ mode => '1',⟧ }\n}\n", "", false, true},
		{"define d() {\n  file { '/x':⟦¦ mode => '1',⟧ }\n}\n", "", false, true},
		{"file { '/x':⟦¦ mode => '1',⟧ }\n", "", true, true}, // no syntax error either side
		// refused: what a rule reads
		{"class c {\n  file { '/x':⟦¦ owner => 'root',⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ path => '/y',⟧ }\n}\n", "", false, false},
		{"class c {\n  package { 'p':⟦¦ provider => apt,⟧ }\n}\n", "", false, false}, // (a package's key: addAliases)
		{"class c {\n  file { '/x':⟦¦ require => File['/y'],⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ tag => 'a',⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦ require => File['/y'],¦⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => '1',⟧ }\n}\n", "mode", false, false}, // File <| mode == ... |>
		// refused: a duplicate, a splat, +>
		{"class c {\n  file { '/x': mode => '1',⟦¦ mode => '1',⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x': mode => '1',⟦ mode => '1',¦⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x': * => $h,⟦¦ mode => '1',⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ * => {},⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ * => 'x',⟧ }\n}\n", "", false, false}, // a splat of a literal: Puppet's error, not ours to hide
		{"class c {\n  file { '/x':⟦¦ mode +> '1',⟧ }\n}\n", "", false, false},
		// refused: not a built-in inert type's plain declaration
		{"class c {\n  web::vhost { 'w':⟦¦ docroot => '/a',⟧ }\n}\n", "", false, false},
		{"class c {\n  class { 'web':⟦¦ port => 80,⟧ }\n}\n", "", false, false},
		{"class c {\n  stage { 'pre':⟦¦ x => 1,⟧ }\n}\n", "", false, false},
		{"class c {\n  Resource['file'] { '/x':⟦¦ mode => '1',⟧ }\n}\n", "", false, false},
		{"class c {\n  File { ⟦¦mode => '1', ⟧ensure => file }\n}\n", "", false, false},
		{"class c {\n  File['/x'] { ⟦¦mode => '1', ⟧ensure => file }\n}\n", "", false, false},
		// refused: a value that reads something, or is no literal
		{"class c {\n  file { '/x':⟦¦ mode => $m,⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => \"${m}\",⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => [$m],⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => [['a']],⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => undef,⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => lookup('m'),⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => { 'a' => 1 },⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ mode => '1' + 2,⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '/x':⟦¦ content => 'a\nb',⟧ }\n}\n", "", false, false}, // over two lines: not a literal the cutoff for values takes
		// refused: two attributes, or one with another edit
		{"class c {\n  file { '/x':⟦¦ mode => '1', group2 => '2',⟧ }\n}\n", "", false, false},
		{"class c {\n  file { '⟦/x¦/y⟧':⟦¦ mode => '1',⟧ }\n}\n", "", false, false},
		// refused: a file with code of its own whose syntax errors come or go
		{"file { '/x':\n  ensure => file,\n  mode => ⟦¦''⟧\n}\n", "", true, false},
	}
	for _, c := range cases {
		oldText, curText := c.edit, c.edit
		for strings.Contains(oldText, "⟦") {
			i := strings.Index(oldText, "⟦")
			bar := strings.Index(oldText, "¦")
			j := strings.Index(oldText, "⟧")
			oldText = oldText[:i] + oldText[i+len("⟦"):bar] + oldText[j+len("⟧"):]
			i, bar, j = strings.Index(curText, "⟦"), strings.Index(curText, "¦"), strings.Index(curText, "⟧")
			curText = curText[:i] + curText[bar+len("¦"):j] + curText[j+len("⟧"):]
		}
		uri := "file:///w/modules/c/manifests/init.pp"
		old := source.NewFile(uri, "/w/modules/c/manifests/init.pp", []byte(oldText))
		cur := source.NewFile(uri, "/w/modules/c/manifests/init.pp", []byte(curText))
		j := &followJudge{sys: New().(*System), queried: map[string]bool{}, order: map[string]int{uri: 0}, topLevel: map[string]bool{uri: c.top}}
		if c.queried != "" {
			j.queried[c.queried] = true
		}
		w, _ := j.droppedTrees(old, cur, analysis.NewShift(uri, old.Text, cur.Text))
		if got := w != nil; got != c.want {
			t.Errorf("%q -> %q: followed %v, want %v", oldText, curText, got, c.want)
		}
	}
	// a collector querying what we cannot read refuses every attribute
	j := &followJudge{sys: New().(*System), queried: map[string]bool{}, anyAttr: true, order: map[string]int{"file:///w/c.pp": 0}, topLevel: map[string]bool{}}
	old := source.NewFile("file:///w/c.pp", "/w/c.pp", []byte("class c { file { '/x': } }\n"))
	cur := source.NewFile("file:///w/c.pp", "/w/c.pp", []byte("class c { file { '/x': mode => '1' } }\n"))
	if w, _ := j.droppedTrees(old, cur, analysis.NewShift(old.URI, old.Text, cur.Text)); w != nil {
		t.Errorf("an attribute added with a collector querying an unknown attribute was followed")
	}
}
