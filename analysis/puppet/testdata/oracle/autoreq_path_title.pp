# Autorequire follows the `path` namevar, not the title: the directory is
# declared under the title 'confdir' with path => .../ap, and the file inside
# it (declared first) still autorequires it.
file { '/tmp/puppet-order-case/ap/f.conf': ensure => file }
notify { 'between': }
file { 'confdir': ensure => directory, path => '/tmp/puppet-order-case/ap' }
