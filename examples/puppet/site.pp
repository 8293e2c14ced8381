# A small web node: the package, its configuration and the service, with
# one mistake in the relationships. Try:
#   ordering-lsp check examples/
#   ordering-lsp order examples/puppet/fixed.pp
package { 'nginx': ensure => installed }

file { '/etc/nginx/nginx.conf':
  ensure  => file,
  content => "worker_processes 2;\n",
  require => Package['nginx'],
  notify  => Service['nginx'],
}

service { 'nginx':
  ensure => running,
  enable => true,
  before => Package['nginx'],   # wrong: the service cannot start before its package
}
