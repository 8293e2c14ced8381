# A collector made inside a define body collects in the next round: the
# instance realize()d from main code is evaluated first.
define site() { notify { "site-${title}": } }
define wrap() { Site <| title == 'a' |> }
@site { 'a': }
@site { 'b': }
wrap { 'w': }
realize(Site['b'])
notify { 'p': }
