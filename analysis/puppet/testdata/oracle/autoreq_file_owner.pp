# A file autorequires its owner (user) and group, and a nested file its
# nearest managed ancestor, skipping unmanaged intermediate directories.
file  { '/tmp/puppet-order-case/afo/a/b/c': ensure => file, owner => 'po-own', group => 'po-grp' }
file  { '/tmp/puppet-order-case/afo': ensure => directory }
group { 'po-grp': ensure => present }
user  { 'po-own': ensure => present }
