# `!=` in a collector query compares the attribute as written, tag too
# (Puppet 7: !equals(resource[attr], value)), not the tags Puppet gives a
# resource; a resource without the attribute matches (the e's are
# written so that they match neither query).
notify { ['e1', 'e2']: tag => 'plain', message => 'hi' }
notify { 'a': tag => 'plain', message => 'hi' }
notify { 'b': }
define d() { notify { "in-${title}": message => 'hi' } }
d { 'plain': }
Notify <| tag != 'plain' |> -> Notify['e1']
Notify <| message != 'hi' |> -> Notify['e2']
