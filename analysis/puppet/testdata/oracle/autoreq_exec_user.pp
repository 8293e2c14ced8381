# An exec with `user =>` autorequires that user (declared after it); a file
# with ensure => link autorequires its `target` when that file is managed.
exec { 'as-user': command => '/bin/true', user => 'po-exec' }
file { '/tmp/puppet-order-case/lnk/link': ensure => link, target => '/tmp/puppet-order-case/lnk2/target' }
notify { 'mid': }
user { 'po-exec': ensure => present }
file { '/tmp/puppet-order-case/lnk2/target': ensure => file }
