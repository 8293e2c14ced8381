# The same inside a class: the File default written after file '/tmp/puppet-order-case/a'
# does not reach it, so Notify[y] (declared first) still runs first.
class c {
  notify { 'y': }
  file { '/tmp/puppet-order-case/a': ensure => absent }
  File { before => Notify['y'] }
}
include c
