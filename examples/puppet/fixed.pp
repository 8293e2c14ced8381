# The same node with the relationships right: the package, then its
# configuration, then the service, which is restarted when the file changes.
package { 'nginx': ensure => installed }

file { '/etc/nginx/nginx.conf':
  ensure  => file,
  content => "worker_processes 2;\n",
  require => Package['nginx'],
}

service { 'nginx':
  ensure    => running,
  enable    => true,
  subscribe => File['/etc/nginx/nginx.conf'],
}
