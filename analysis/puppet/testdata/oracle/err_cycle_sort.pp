# The cycle path starts at the smallest ref by byte order, not at the first
# declared resource: 'Notify[Z]' < 'Notify[a]' (uppercase sorts first), and
# 'File[...]' < 'Notify[...]' across types.
notify { 'a': require => Notify['Z'] }
notify { 'Z': require => Notify['a'] }
notify { 'm': require => File['/tmp/puppet-order-case/cs'] }
file { '/tmp/puppet-order-case/cs': ensure => file, require => Notify['m'] }
