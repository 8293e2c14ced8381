package cfengine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOwns: a .cf file is CFEngine policy by where it is and what it holds
// (issue 14: operations-puppet's modules/spamassassin/templates/local.cf
// was parsed as policy).
func TestOwns(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "modules", "spamassassin")
	os.MkdirAll(filepath.Join(mod, "manifests"), 0o755)
	os.MkdirAll(filepath.Join(mod, "templates"), 0o755)
	os.MkdirAll(filepath.Join(dir, "policy", "templates"), 0o755)
	spam := "# SpamAssassin\ntrusted_networks <%= @nets %>\nbody LOCAL_DEMO /test/\nscore LOCAL_DEMO 0.1\n"
	cases := []struct {
		path, text string
		want       bool
	}{
		{filepath.Join(mod, "templates", "local.cf"), spam, false},
		{filepath.Join(mod, "templates", "policy.cf"), "bundle agent main\n{\n}\n", false},  // data of a Puppet module
		{filepath.Join(dir, "local.cf"), spam, false},                                       // no header, no block
		{filepath.Join(dir, "policy", "templates", "x.cf"), "bundle agent x\n{\n}\n", true}, // not a Puppet module
		{filepath.Join(dir, "main.cf"), "# comment\nbody common control\n{\n}\n", true},
		{filepath.Join(dir, "git.cf"), "promise agent git\n{\n}\n", true},
		{filepath.Join(dir, "new.cf"), "", true},                           // a file being started
		{filepath.Join(dir, "typo.cf"), "bunndle agent foo\n{\n}\n", true}, // policy with an error: reported
		{filepath.Join(dir, "main.cf.in"), "body common control\n{\n}\n", true},
		{filepath.Join(dir, "main.pp"), "bundle agent main\n{\n}\n", false},
		{filepath.Join(dir, "salt", "files", "master.cf"), "{{ pillar['x'] }}\nsmtp inet n - n - - smtpd\n", false}, // Salt's Jinja template (heroes-salt)
		{filepath.Join(dir, "spam.cf"), "{%- set x = 1 %}\nbody RULE /x/\n", false},
		// postfix's master.cf kept in a Salt tree (tdf/salt-states-base): its braces are ${variables}
		{filepath.Join(dir, "mail", "master.cf"), "# FILE MANAGED BY SALT\nsmtp inet n - n - 1 postscreen\nrelay unix - - n - - smtp -o smtp_fallback_relay=${relay}\n", false},
	}
	s := &System{}
	for _, c := range cases {
		text := []byte(c.text)
		if got := s.Owns(c.path, func() []byte { return text }); got != c.want {
			rel, _ := filepath.Rel(dir, c.path)
			t.Errorf("Owns(%s) = %v, want %v", rel, got, c.want)
		}
	}
}
