# A define's body is evaluated after the code that declared it, so a default
# written after the instance still reaches the resources in its body: the
# file in d's body waits for nothing but runs before Notify['y'].
define d() { file { "/tmp/puppet-order-case/${title}": ensure => absent } }
notify { 'y': }
d { 'x': }
File { before => Notify['y'] }
