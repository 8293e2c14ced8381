# A class inherits the tags of the class that declared it; a define
# instance's title is lowercased into a tag; 'has space' is not a tag.
notify { ['x5', 'x8', 'x9']: }
class inner { notify { 'in_inner': } }
class outer { include inner }
include outer
define d2() { notify { "m-${title}": } }
d2 { 'has space': }
d2 { 'Upper': }
Notify <| tag == 'outer' |> -> Notify['x5']
Notify <| tag == 'upper' |> -> Notify['x8']
