# A class reference whose title is not a class name (here a stray
# `include` kept in the title) stops the compilation: Illegal name.
class a { notify { 'a': } }
class b { notify { 'b': } }
include a
include b
Class['a'] -> Class['include b']
