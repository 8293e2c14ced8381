# realize() adds a collection like a collector does: both are evaluated before
# each round of define bodies, which run in catalog order (Site[a] before Other[o]).
define site() { notify { "site-${title}": } }
define other() { notify { "other-${title}": } }
@site { 'a': }
Site <| title == 'a' |>
other { 'o': }
@site { 'b': }
realize(Site['b'])
@notify { 'vn': }
Notify <| title == 'vn' |>
notify { 'plain': }
