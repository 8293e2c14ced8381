# A file title with a trailing slash is the path without it: a reference
# without the slash finds it (a title built from a variable too).
$home = "/Users"
file { "${home}/cltbld/bin/": ensure => directory }
file { "${home}/cltbld/bin/x": ensure => file, require => File["/Users/cltbld/bin"] }
