# `==` in a collector query (not tag) is equals(written value, wanted),
# or, for an array, whether one element equals it: a number never equals
# a string, strings compare case-insensitively, an absent attribute
# equals nothing but undef.
notify { 't_num': }
notify { 'num': message => 1 }
notify { 't_numnum': }
notify { 'numnum': message => 1 }
notify { 't_case': }
notify { 'case': message => 'X' }
notify { 't_arr': }
notify { 'arr': message => ['y', 'X'] }
notify { 't_arrnum': }
notify { 'arrnum': message => [1, 2] }
notify { 't_absent': }
notify { 'absent': }
Notify <| title == 'num' and message == '1' |> -> Notify['t_num']
Notify <| title == 'numnum' and message == 1 |> -> Notify['t_numnum']
Notify <| title == 'case' and message == 'x' |> -> Notify['t_case']
Notify <| title == 'arr' and message == 'x' |> -> Notify['t_arr']
Notify <| title == 'arrnum' and message == '2' |> -> Notify['t_arrnum']
Notify <| title == 'absent' and message == '' |> -> Notify['t_absent']
