# Multi-title references: Notify['a', 'b'] is the same as
# [Notify['a'], Notify['b']], in a metaparameter and in a chain.
notify { 'c': require => Notify['a', 'b'] }
notify { 'd': }
notify { 'a': }
notify { 'b': }
Notify['d', 'c'] -> Notify['e']
notify { 'e': }
