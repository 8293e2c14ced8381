# Automatic tags: a resource's own title (if a valid tag), the title of the
# define instance around it, the segments of its class's name.
define d0() { notify { "d0-${title}-a": } }
class c1::c2 { notify { 'inclass': } }
include c1::c2
d0 { 'i0': }
notify { 'x1': }
notify { 'x2': }
notify { 'x3': }
notify { 'x4': }
notify { 'sel': }
notify { 'first': }
Notify <| tag == 'i0' |> -> Notify['x2']
Notify <| tag == 'sel' |> -> Notify['x3']
Notify <| tag == 'c2' |> -> Notify['x4']
Notify['x2'] -> Notify['first']
Notify['x3'] -> Notify['first']
Notify['x4'] -> Notify['first']
