# Same graph as err_cycle_lasso with c's before array in the other order
# ([a, b]): now the BFS from 'a' returns to 'a' first, (a => b => c => a).
notify { 'a': before => Notify['b'] }
notify { 'b': before => Notify['c'] }
notify { 'c': before => [Notify['a'], Notify['b']] }
