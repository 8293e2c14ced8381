# A chaining arrow whose LEFT operand is not declared: Puppet reports the
# relationship from the missing resource.
notify { 'a': }
Notify['nope'] -> Notify['a']
