# A refresh chain a ~> b ~> c through refreshonly execs, and a plain -> after
# b: 'b' is refreshed by 'a' and 'c' by 'b' (also under --noop: "would have"
# events propagate); 'd' (ordered by ->) is never refreshed.
notify { 'a': }
exec { 'b': command => '/bin/true', refreshonly => true }
exec { 'c': command => '/bin/true', refreshonly => true }
exec { 'd': command => '/bin/true', refreshonly => true }
Notify['a'] ~> Exec['b'] ~> Exec['c']
Exec['b'] -> Exec['d']
