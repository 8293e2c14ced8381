# Collector query operators: `and`, `or`, and `==` on a tag array (true if
# any element equals). 'a' and 'c' match and run before 'end'; 'b' (only
# tag red) does not match, so it stays after 'end' in catalog order.
notify { 'end': }
notify { 'a': tag => ['red', 'big'] }
notify { 'c': tag => 'blue' }
notify { 'b': tag => 'red' }
notify { 'd': }
Notify <| tag == 'red' and tag == 'big' |> -> Notify['end']
Notify <| title == 'c' or title == 'zzz' |> -> Notify['end']
