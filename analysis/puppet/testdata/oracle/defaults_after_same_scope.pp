# A resource default reaches the resources declared after it in its scope, not
# those declared before: Puppet 7 looks the defaults up when it creates a
# resource. Notify[y] comes before the default, so it does not wait for File[/tmp/puppet-order-case/b].
notify { 'y': }
file { '/tmp/puppet-order-case/a': ensure => absent }
Notify { require => File['/tmp/puppet-order-case/b'] }
notify { 'z': }
file { '/tmp/puppet-order-case/b': ensure => absent }
