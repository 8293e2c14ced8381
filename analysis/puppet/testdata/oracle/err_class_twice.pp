# The resource-like class declaration `class { 'x': }` twice is a duplicate
# declaration of Class[X].
class x { notify { 'x-1': } }
class { 'x': }
class { 'x': }
