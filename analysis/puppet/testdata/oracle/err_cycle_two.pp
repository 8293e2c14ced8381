# Two independent cycles: Puppet reports `Found 2 dependency cycles:` and both
# paths on one line separated by a literal \n.
notify { 'a': before => Notify['b'] }
notify { 'b': before => Notify['a'] }
notify { 'c': before => Notify['d'] }
notify { 'd': before => Notify['c'] }
notify { 'free': }
