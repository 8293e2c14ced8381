# Two files of one path under two titles: the second cannot take the path
# as its alias.
file { 'a': ensure => file, path => '/tmp/ordering-alias' }
file { 'b': ensure => file, path => '/tmp/ordering-alias' }
