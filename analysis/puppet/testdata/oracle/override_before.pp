# A resource override (Type['title'] { attr => value }) adding a metaparameter
# after the declaration: Notify['a'] gets before => Notify['b'].
notify { 'b': }
notify { 'a': }
Notify['a'] { before => Notify['b'] }
notify { 'c': }
