# Collector queries only see attributes written in the manifest: 'x1' has
# message written, 'x2' only gets message from its title (the provider
# default), so `message == 'x2'` does not match it and no edge is made.
notify { 'first': }
notify { 'x1': message => 'x1' }
notify { 'x2': }
Notify <| message == 'x1' |> -> Notify['first']
Notify <| message == 'x2' |> -> Notify['first']
