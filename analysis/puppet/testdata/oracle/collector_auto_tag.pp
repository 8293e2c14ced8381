# Collectors match automatic tags too: a resource is tagged with the names of
# its enclosing classes, so `Notify <| tag == 'web' |>` matches 'in-web'
# (declared in class web) but not 'top', which stays after 'end'.
class web { notify { 'in-web': } }
notify { 'end': }
include web
notify { 'top': }
Notify <| tag == 'web' |> -> Notify['end']
