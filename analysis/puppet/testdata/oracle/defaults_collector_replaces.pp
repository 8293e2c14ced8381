# A collector's override block overrides with its scope's defaults as with
# what it writes: Notify[n1] took the top-scope require => Exec['e3'] when it
# was created, and class c1's collector replaces it with c1's Exec['e0'].
class c1 {
  Notify { require => Exec['e0'] }
  Notify <| title == 'n1' |> { message => 'from c1' }
}
Notify { require => Exec['e3'] }
notify { 'n1': }
include c1
exec { 'e0': command => '/bin/true' }
exec { 'e3': command => '/bin/true' }
