# A collector with an override block brings the defaults of its own scope to
# what it collects: Notify[v], declared at top scope, gets class k's
# require => Exec['w'] through k's collector, so the exec runs first.
class k {
  Notify { require => Exec['w'] }
  Notify <| tag == 't' |> { message => 'x' }
}
notify { 'v': tag => 't' }
exec { 'w': command => '/bin/true' }
include k
