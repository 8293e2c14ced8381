// Package controlrepo writes a Puppet control repository shaped like the
// large real ones (wikimedia/operations-puppet): node blocks that pick a
// role, roles made of profiles, profiles that include component modules
// and declare their defines, one profile::base every role includes,
// Hiera data, and conditionals on facts everywhere. Benchmarks and the
// latency test run on it when the real repositories are not at hand.
package controlrepo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// Shape sizes the repository.
type Shape struct {
	Modules  int // component modules (a class, a define, 6-10 resources each)
	Profiles int // profiles, each including 3-6 modules
	Roles    int // roles, each including profile::base and 2-5 profiles
	Seed     int64
}

// Large is about the size of operations-puppet's role/profile layer.
var Large = Shape{Modules: 300, Profiles: 120, Roles: 400, Seed: 1}

// Write writes the repository under dir and returns the path of
// profile::base (the file every run reads).
func Write(dir string, s Shape) (string, error) {
	rng := rand.New(rand.NewSource(s.Seed))
	files := map[string]string{}
	files["environment.conf"] = "modulepath = modules\n"
	files["hiera.yaml"] = "version: 5\ndefaults:\n  datadir: hieradata\nhierarchy:\n  - name: role\n    path: 'role/%{::role}.yaml'\n  - name: common\n    path: common.yaml\n"
	var common strings.Builder
	for m := 0; m < s.Modules; m++ {
		files[fmt.Sprintf("modules/m%d/manifests/init.pp", m)] = module(rng, m)
		files[fmt.Sprintf("modules/m%d/manifests/conf.pp", m)] = moduleDefine(m)
		if m%3 == 0 {
			fmt.Fprintf(&common, "m%d::version: '1.%d'\n", m, m)
		}
	}
	for p := 0; p < s.Profiles; p++ {
		files[fmt.Sprintf("modules/profile/manifests/p%d.pp", p)] = profile(rng, p, s.Modules)
		fmt.Fprintf(&common, "profile::p%d::ensure: present\n", p)
	}
	files["modules/profile/manifests/base.pp"] = base(rng, s.Modules)
	files["hieradata/common.yaml"] = common.String()
	var site strings.Builder
	for r := 0; r < s.Roles; r++ {
		files[fmt.Sprintf("modules/role/manifests/r%d.pp", r)] = role(rng, r, s.Profiles)
		fmt.Fprintf(&site, "node /^r%d-\\d+\\.example\\.org$/ {\n  include role::r%d\n}\n", r, r)
	}
	site.WriteString("node default {\n  include profile::base\n}\n")
	files["manifests/site.pp"] = site.String()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "modules", "profile", "manifests", "base.pp"), nil
}

func module(rng *rand.Rand, m int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "class m%d(\n  String $version = 'latest',\n  Boolean $manage_service = true,\n) {\n", m)
	fmt.Fprintf(&b, "  package { 'pkg-m%d': ensure => $version }\n", m)
	fmt.Fprintf(&b, "  file { '/etc/m%d': ensure => directory, require => Package['pkg-m%d'] }\n", m, m)
	fmt.Fprintf(&b, "  file { '/etc/m%d/m%d.conf':\n    ensure  => file,\n    content => \"version ${version}\\n\",\n    notify  => Service['svc-m%d'],\n  }\n", m, m, m)
	fmt.Fprintf(&b, "  if $manage_service {\n    service { 'svc-m%d': ensure => running, enable => true }\n  } else {\n    service { 'svc-m%d': ensure => stopped }\n  }\n", m, m)
	if rng.Intn(2) == 0 {
		fmt.Fprintf(&b, "  if $facts['os']['family'] == 'Debian' {\n    exec { 'm%d-reload': command => '/bin/true', refreshonly => true }\n    Exec['m%d-reload'] -> Service['svc-m%d']\n  } else {\n    exec { 'm%d-reload': command => '/bin/false', refreshonly => true }\n    Service['svc-m%d'] -> Exec['m%d-reload']\n  }\n", m, m, m, m, m, m)
	}
	extra := 2 + rng.Intn(4)
	for i := 0; i < extra; i++ {
		fmt.Fprintf(&b, "  file { '/etc/m%d/part%d': ensure => file, content => 'x' }\n", m, i)
	}
	b.WriteString("}\n")
	return b.String()
}

func moduleDefine(m int) string {
	return fmt.Sprintf("define m%d::conf(String $value = '', Enum['present', 'absent'] $ensure = 'present') {\n"+
		"  file { \"/etc/m%d/conf.d/${title}\": ensure => $ensure, content => $value, require => Class['m%d'] }\n"+
		"  if $ensure == 'present' { File[\"/etc/m%d/conf.d/${title}\"] ~> Service['svc-m%d'] }\n}\n", m, m, m, m, m)
}

func profile(rng *rand.Rand, p, modules int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "class profile::p%d(\n  String $ensure = lookup('profile::p%d::ensure', {default_value => 'present'}),\n) {\n", p, p)
	n := 3 + rng.Intn(4)
	var ms []int
	for i := 0; i < n; i++ {
		m := rng.Intn(modules)
		ms = append(ms, m)
		fmt.Fprintf(&b, "  include m%d\n", m)
	}
	for i, m := range ms {
		fmt.Fprintf(&b, "  m%d::conf { 'p%d-%d': value => 'from p%d', ensure => $ensure }\n", m, p, i, p)
	}
	if len(ms) > 1 {
		fmt.Fprintf(&b, "  Class['m%d'] -> Class['m%d']\n", ms[0], ms[1])
	}
	fmt.Fprintf(&b, "  case $facts['os']['release']['major'] {\n    '11': { notify { 'p%d-bullseye': } }\n    '12': { notify { 'p%d-bookworm': } }\n    default: {}\n  }\n", p, p)
	b.WriteString("}\n")
	return b.String()
}

func base(rng *rand.Rand, modules int) string {
	var b strings.Builder
	b.WriteString("class profile::base(\n  Array[String] $admins = lookup('profile::base::admins', {default_value => []}),\n) {\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "  include m%d\n", rng.Intn(modules))
	}
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "  file { '/etc/base/f%d':\n    ensure  => file,\n    content => 'base %d',\n  }\n", i, i)
		if i > 0 {
			fmt.Fprintf(&b, "  File['/etc/base/f%d'] -> File['/etc/base/f%d']\n", i-1, i)
		}
	}
	b.WriteString("  file { '/etc/base': ensure => directory }\n")
	b.WriteString("  $admins.each |$a| { user { $a: ensure => present } }\n")
	b.WriteString("}\n")
	return b.String()
}

func role(rng *rand.Rand, r, profiles int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "class role::r%d {\n  include profile::base\n", r)
	n := 2 + rng.Intn(4)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  include profile::p%d\n", rng.Intn(profiles))
	}
	b.WriteString("}\n")
	return b.String()
}
