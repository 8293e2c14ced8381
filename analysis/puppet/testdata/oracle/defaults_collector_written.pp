# ... but not over a value the resource has: Notify[v] keeps its written
# require => Exec['u'] and does not wait for Exec['w'] (nor for Exec['z'],
# which only w requires).
notify { 'v': tag => 't', require => Exec['u'] }
exec { 'u': command => '/bin/true' }
exec { 'w': command => '/bin/true', require => Exec['z'] }
exec { 'z': command => '/bin/true' }
Notify { require => Exec['w'] }
Notify <| tag == 't' |> { message => 'x' }
