package puppet

import (
	"sort"
	"strings"
	"testing"
)

// TestAttrSiteAt: where an attribute name is being typed (| is the
// cursor), the type of the body and the names it already has; elsewhere
// (a title, a value, a string, a comment, a block that is no resource
// body) nothing.
func TestAttrSiteAt(t *testing.T) {
	cases := []struct {
		text, typ, title, written string // written: comma separated; typ "": no site
	}{
		{"file { '/x':\n  ens|", "file", "/x", ""},
		{"file { '/x': ensure => file,\n  mo|", "file", "/x", "ensure"},
		{"file { '/x': ensure => file, |", "file", "/x", "ensure"},
		{"file { ['/a', '/b']:\n  |", "file", "['/a', '/b']", ""},
		{"apache::vhost { 'v':\n  port => 80,\n  doc|", "apache::vhost", "v", "port"},
		{"class { 'apache':\n  default_mods => false,\n  |", "class", "apache", "default_mods"},
		{"File {\n  mo|", "file", "", ""},
		{"@@file { '/x':\n  ow|", "file", "/x", ""},
		{"class web {\n  package { 'nginx': ens|", "package", "nginx", ""},
		{"class web {\n  package { 'nginx':\n    ensure => installed;\n  'vim':\n    ens|", "package", "vim", ""},
		{"file { '/x': ensure => file }\nfile { '/y': |", "file", "/y", ""},
		{"file { '/y': mo|de => '0644',\n  owner => 'root', # x => 1\n  content => \"a => b\", require => [File['a'], { 'k' => 1 }] }\nfile { '/z': group => 'g' }", "file", "/y", "content,owner,require"},
		// not a site
		{"file { |", "", "", ""},                              // the title
		{"file { '/x': ensure => |", "", "", ""},              // a value
		{"file { '/x': require => [File['a'], |", "", "", ""}, // in a value's array
		{"file { '/x': content => 'a, b|", "", "", ""},        // in a string
		{"file { '/x': # mo|", "", "", ""},                    // in a comment
		{"class web {\n  |", "", "", ""},                      // a class body
		{"case $file {\n  'a': {\n  }\n  'b': |", "", "", ""}, // a case option
		{"if $x {\n  fo|", "", "", ""},                        // a block
		{"class web inherits base {\n  |", "", "", ""},        // a class body
		{"$h = { 'a' => 1, |", "", "", ""},                    // a hash
		{"file { '/x': ensure => file; |", "", "", ""},        // the next title
		{"node 'a' {\n  |", "", "", ""},
		{"file { '/x': Mo|", "", "", ""}, // not a name's first letter
	}
	for _, c := range cases {
		off := strings.IndexByte(c.text, '|')
		text := []byte(strings.Replace(c.text, "|", "", 1))
		site, ok := attrSiteAt(text, off)
		if c.typ == "" {
			if ok {
				t.Errorf("%q: a site of %q", c.text, site.typ)
			}
			continue
		}
		if !ok {
			t.Errorf("%q: no site, want %q", c.text, c.typ)
			continue
		}
		var written []string
		for w := range site.written {
			written = append(written, w)
		}
		sort.Strings(written)
		if site.typ != c.typ || site.title != c.title || strings.Join(written, ",") != c.written {
			t.Errorf("%q: %q %q written %v, want %q %q %q", c.text, site.typ, site.title, written, c.typ, c.title, c.written)
		}
		if want := strings.LastIndexAny(string(text[:off]), " \n:,{") + 1; site.start != want {
			t.Errorf("%q: the name starts at %d, want %d", c.text, site.start, want)
		}
	}
}
