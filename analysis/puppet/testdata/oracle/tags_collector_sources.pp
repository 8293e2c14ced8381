# Collectors compare a tag with every tag Puppet gives a resource,
# without case: a title only when it is tag-like ('/tmp/a b' is not), the
# `::` segments of a name (define m::inner: m, inner; a title), a `tag`
# attribute array and its segments, and the tags of every container (a
# define instance's attribute reaches what its body declares, a class
# what the define instance declaring it has).
notify { ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8']: }
define m::inner() { notify { "inner-${title}": } }
define outer() {
  m::inner { "i-${title}": }
  notify { "outer-${title}": }
}
class holder { notify { 'in_holder': } }
define declares() { include holder }
outer { '/tmp/a b': tag => ['Alpha::Beta', 'gamma'] }
outer { 'Plain': }
declares { 'dd': tag => 'Delta' }
notify { 'own': tag => ['x', 'Own::Seg'] }
notify { 'Title::Part': }
notify { 'b': }
Notify <| tag == 'inner' |> -> Notify['e1']
Notify <| tag == 'BETA' |> -> Notify['e2']
Notify <| tag == 'plain' |> -> Notify['e3']
Notify <| tag == 'delta' |> -> Notify['e4']
Notify <| tag == 'Seg' |> -> Notify['e5']
Notify <| tag == 'part' |> -> Notify['e6']
Notify <| tag == 'tmp' |> -> Notify['e7']
Notify <| tag == 'Alpha::BETA' |> -> Notify['e8']
