# A collector that matches nothing makes no edge and no error; a chain with a
# non-matching collector on one side is silently a no-op.
notify { 'a': }
notify { 'b': }
Notify <| title == 'nothing-here' |> -> Notify['a']
Exec <| |> -> Notify['a']
Notify['b'] -> Notify <| tag == 'nope' |>
