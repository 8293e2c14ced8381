# The printed cycle path is a BFS from the SCC member with the smallest ref
# string; it stops at the FIRST vertex seen twice, which need not be the start:
# here 'c' lists b before a, so Puppet prints (a => b => c => b).
notify { 'a': before => Notify['b'] }
notify { 'b': before => Notify['c'] }
notify { 'c': before => [Notify['b'], Notify['a']] }
