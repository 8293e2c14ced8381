# `!=` in a collector query is !equals(written value, wanted): an absent
# attribute matches, an array never equals a string (even ['x']), strings
# compare case-insensitively; tag != compares the written tag only (none
# written: matches, whatever class/type tags Puppet gives the resource).
notify { 't_arr': }
notify { 'arr': message => ['x', 'y'] }
notify { 't_one': }
notify { 'one': message => ['x'] }
notify { 't_case': }
notify { 'case': message => 'X' }
notify { 't_absent': }
notify { 'absent': }
notify { 't_tarr': }
notify { 'tarr': tag => ['t', 'u'] }
notify { 't_tstr': }
notify { 'tstr': tag => 'T' }
class c {
  notify { 't_cls': }
  notify { 'cls': }
}
include c
notify { 't_type': }
notify { 'type': }
Notify <| title == 'arr' and message != 'x' |> -> Notify['t_arr']
Notify <| title == 'one' and message != 'x' |> -> Notify['t_one']
Notify <| title == 'case' and message != 'x' |> -> Notify['t_case']
Notify <| title == 'absent' and message != 'x' |> -> Notify['t_absent']
Notify <| title == 'tarr' and tag != 't' |> -> Notify['t_tarr']
Notify <| title == 'tstr' and tag != 't' |> -> Notify['t_tstr']
Notify <| title == 'cls' and tag != 'c' |> -> Notify['t_cls']
Notify <| title == 'type' and tag != 'notify' |> -> Notify['t_type']
