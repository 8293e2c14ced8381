package puppet_test

import (
	"fmt"
	"strings"
)

// genManifest writes a site manifest with about n resources: classes of
// ten resources (package -> file -> service chains with require, notify
// and subscribe, a file tree that autorequires its directory, an exec
// with cwd), chained class to class with ->, each class included from the
// top; a defined type used once per class. One resource is 2-4 lines, so
// n resources are roughly 3n lines.
func genManifest(n int) []byte {
	var b strings.Builder
	classes := (n + 9) / 10
	b.WriteString("define app::instance($port = 80) {\n  notify { \"instance-${title}\": message => \"port ${port}\" }\n}\n")
	for c := 0; c < classes; c++ {
		fmt.Fprintf(&b, "class app::c%d {\n", c)
		fmt.Fprintf(&b, "  package { 'pkg%d': ensure => installed }\n", c)
		fmt.Fprintf(&b, "  file { '/srv/c%d': ensure => directory, require => Package['pkg%d'] }\n", c, c)
		fmt.Fprintf(&b, "  file { '/srv/c%d/conf':\n    ensure  => file,\n    content => 'x',\n    notify  => Service['svc%d'],\n  }\n", c, c)
		fmt.Fprintf(&b, "  file { '/srv/c%d/data': ensure => directory }\n", c)
		fmt.Fprintf(&b, "  exec { 'init%d':\n    command     => '/bin/true',\n    cwd         => '/srv/c%d/data',\n    refreshonly => true,\n    subscribe   => File['/srv/c%d/conf'],\n  }\n", c, c, c)
		fmt.Fprintf(&b, "  service { 'svc%d': ensure => running, enable => true }\n", c)
		fmt.Fprintf(&b, "  user { 'u%d': ensure => present, groups => ['g%d'] }\n", c, c)
		fmt.Fprintf(&b, "  group { 'g%d': ensure => present }\n", c)
		fmt.Fprintf(&b, "  notify { 'done%d': }\n", c)
		fmt.Fprintf(&b, "  Service['svc%d'] -> Notify['done%d']\n", c, c)
		fmt.Fprintf(&b, "  app::instance { 'i%d': port => %d }\n", c, 8000+c)
		b.WriteString("}\n")
	}
	for c := 0; c < classes; c++ {
		fmt.Fprintf(&b, "include app::c%d\n", c)
		if c > 0 {
			fmt.Fprintf(&b, "Class['app::c%d'] -> Class['app::c%d']\n", c-1, c)
		}
	}
	return []byte(b.String())
}
