# A file declared with title 'cfg' and path => '/tmp/.../pn' can be referenced
# both as File['cfg'] and as File['/tmp/.../pn'] (namevar alias); the
# reference by path resolves without error.
notify { 'n1': before => File['/tmp/puppet-order-case/pn'] }
notify { 'n2': require => File['cfg'] }
file { 'cfg': ensure => file, path => '/tmp/puppet-order-case/pn' }
