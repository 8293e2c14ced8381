# A collector that matches the resource it is chained to makes a self-loop:
# a cycle (main code is tagged 'class').
notify { 'first': }
notify { 'x1': }
Notify <| tag == 'class' |> -> Notify['x1']
