# A resource in a defined type's body carries the define's name as a tag
# (and every tag of its declaring resource): the collector orders it.
define d0() { notify { "d0-${title}-a": } }
d0 { 'i0': }
notify { 'x': }
Notify <| tag == 'd0' |> -> Notify['x']
notify { 'y': before => D0['i0'] }
