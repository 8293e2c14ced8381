# A file title with a trailing slash keeps it in its ref (File[/.../ts/]), but
# the path namevar is canonicalised: the file inside autorequires it and the
# reference File['/tmp/puppet-order-case/ts'] (no slash) resolves.
file { '/tmp/puppet-order-case/ts/f': ensure => file }
file { '/tmp/puppet-order-case/ts/': ensure => directory }
notify { 'n': require => File['/tmp/puppet-order-case/ts'] }
