# The exec's cwd and command file are declared AFTER the exec: the
# autorequire pulls them before it (catalog order alone would run the exec
# first).
exec { 'run': command => '/tmp/puppet-order-case/ael/tool', cwd => '/tmp/puppet-order-case/ael/work' }
notify { 'n': }
file { '/tmp/puppet-order-case/ael/work': ensure => directory }
file { '/tmp/puppet-order-case/ael/tool': ensure => file }
