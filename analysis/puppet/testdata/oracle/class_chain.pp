# Class-to-class chaining: Class['b'] -> Class['a'] orders every resource of b
# before every resource of a, though a is included (and enters the catalog)
# first; an unrelated top-level resource keeps its catalog position.
class a { notify { 'a-1': } notify { 'a-2': } }
class b { notify { 'b-1': } }
include a
notify { 'top': }
include b
Class['b'] -> Class['a']
