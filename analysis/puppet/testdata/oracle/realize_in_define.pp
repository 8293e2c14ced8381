# realize() inside a define body: its target's body runs in the next round.
define site() { notify { "site-${title}": } }
define wrap() { realize(Site['b']) }
@site { 'a': }
@site { 'b': }
Site <| title == 'a' |>
wrap { 'w': }
