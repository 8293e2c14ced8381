# An explicit edge opposite to an autorequire wins and removes it (no cycle):
# the exec requires its cwd directory automatically, but the directory is
# explicitly `require`d to come AFTER the exec.
file { '/tmp/puppet-order-case/aeo': ensure => directory, require => Exec['mk'] }
exec { 'mk': command => '/bin/true', cwd => '/tmp/puppet-order-case/aeo' }
notify { 'n': }
