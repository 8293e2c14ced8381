# Exec autorequire scans the command with Ruby's ^ (start of ANY line): in a
# multi-line command the absolute path starting the second line is also
# autorequired; a path in the middle of a line ('mid') is not.
exec { 'multi': command => "/bin/true /tmp/puppet-order-case/ml/mid\n/tmp/puppet-order-case/ml/second", provider => shell }
file { '/tmp/puppet-order-case/ml/second': ensure => file }
file { '/tmp/puppet-order-case/ml/mid': ensure => file }
