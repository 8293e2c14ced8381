package puppet

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestParsePuppetfile: the forms r10k and g10k accept, read as module
// name, source, version and install folder; each name's span is the
// string as written.
func TestParsePuppetfile(t *testing.T) {
	text := `forge "https://forge.puppet.com"
moduledir 'vendor/modules'  # where r10k installs

mod 'puppetlabs/stdlib', '9.6.0'
mod "puppet-nginx",
  :git => "https://example.invalid/nginx.git",
  :ref => 'v5'
mod 'docker', git: 'https://example.invalid/docker.git', branch: 'main'
mod('saz-sudo', '8.0.0')
mod 'site_profile', :local => true, :install_path => 'site'
#mod 'commented/out', '1.0'
  mod 'indented/mod',
      :latest
mod_other 'not/a_mod', '1'
`
	f := &source.File{URI: "file:///repo/Puppetfile", Path: "/repo/Puppetfile", Text: []byte(text)}
	var got []string
	for _, m := range parsePuppetfile(f) {
		got = append(got, fmt.Sprintf("%s %s v=%s git=%s dir=%s at=%s", m.name, m.full, m.version, m.git,
			filepath.ToSlash(m.dir), text[m.at.Start:m.at.End]))
	}
	want := []string{
		"stdlib puppetlabs/stdlib v=9.6.0 git= dir=/repo/vendor/modules/stdlib at='puppetlabs/stdlib'",
		`nginx puppet-nginx v=v5 git=https://example.invalid/nginx.git dir=/repo/vendor/modules/nginx at="puppet-nginx"`,
		"docker docker v=main git=https://example.invalid/docker.git dir=/repo/vendor/modules/docker at='docker'",
		"sudo saz-sudo v=8.0.0 git= dir=/repo/vendor/modules/sudo at='saz-sudo'",
		"site_profile site_profile v= git= dir=/repo/site/site_profile at='site_profile'",
		"mod indented/mod v= git= dir=/repo/vendor/modules/mod at='indented/mod'",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEnvironmentConf: relative folders of modulepath are the
// environment's, `$basemodulepath` the server's.
func TestEnvironmentConf(t *testing.T) {
	w := &moduleWorld{declared: map[string]*declaredModule{}}
	w.readEnvironmentConf("/env", []byte("# modulepath = nope\nmodulepath = site-modules:modules:/opt/mods:$basemodulepath\nmanifest = manifests\n"))
	if got := strings.Join(w.envPath, ":"); got != "/env/site-modules:/env/modules:/opt/mods" || !w.basemodulepath {
		t.Errorf("envPath %s, basemodulepath %v", got, w.basemodulepath)
	}
}

func TestContainsWord(t *testing.T) {
	for _, c := range []struct {
		s, w string
		want bool
	}{
		{"docker-web", "docker", true},
		{"/etc/nginx/nginx.conf", "nginx", true},
		{"ntpdate", "ntp", false},
		{"mydocker", "docker", false},
		{"nginx", "nginx", true},
		{"xnginx nginx", "nginx", true},
	} {
		if got := containsWord(c.s, c.w); got != c.want {
			t.Errorf("containsWord(%q, %q) = %v", c.s, c.w, got)
		}
	}
}

// FuzzPuppetfile: any text reads without a panic or a hang, and every
// declared name's span lies inside the text.
func FuzzPuppetfile(f *testing.F) {
	f.Add("mod 'a/b', '1'\nmod 'c',\n  :git => 'x'\n")
	f.Add("mod \"unterminated\nmoduledir 'm'\\\n")
	f.Add("mod ((( 'x' ,,\n")
	f.Fuzz(func(t *testing.T, text string) {
		sf := &source.File{URI: "file:///r/Puppetfile", Path: "/r/Puppetfile", Text: []byte(text)}
		for _, m := range parsePuppetfile(sf) {
			if m.at.Start < 0 || m.at.End > len(text) || m.at.Start > m.at.End {
				t.Fatalf("span %d-%d outside %d bytes", m.at.Start, m.at.End, len(text))
			}
		}
		parseFixtures(sf)
		parseMetadataDeps(sf)
	})
}
