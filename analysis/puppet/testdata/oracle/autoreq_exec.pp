# An exec autorequires its `cwd` directory and the file that is the first
# (absolute) word of `command`, but not other words of the command nor the
# `creates` file: 'arg' and 'made' (declared after the exec) run after it.
file { '/tmp/puppet-order-case/ae/work': ensure => directory }
file { '/tmp/puppet-order-case/ae/bin/tool': ensure => file }
exec { 'run': command => '/tmp/puppet-order-case/ae/bin/tool --conf /tmp/puppet-order-case/ae/arg', cwd => '/tmp/puppet-order-case/ae/work', creates => '/tmp/puppet-order-case/ae/made' }
file { '/tmp/puppet-order-case/ae/arg': ensure => file }
file { '/tmp/puppet-order-case/ae/made': ensure => file }
