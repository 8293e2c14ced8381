# Collectors as chain operands: every Exec before every Notify; collectors in
# chains also realize the virtual resources they match ('v-late').
notify { 'n1': }
exec { 'e1': command => '/bin/true' }
notify { 'n2': }
@notify { 'v-late': }
exec { 'e2': command => '/bin/true' }
Exec <| |> -> Notify <| |>
