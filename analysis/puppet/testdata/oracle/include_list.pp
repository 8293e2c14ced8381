# `include b, a` and `include ['d', 'c']` declare the classes in list order;
# a top-level `require e` adds Class[E] -> Class[Main]: 'top' waits for e-1,
# but the included classes (contained by Stage[main], not Class[Main]) do not.
class a { notify { 'a-1': } }
class b { notify { 'b-1': } }
class c { notify { 'c-1': } }
class d { notify { 'd-1': } }
class e { notify { 'e-1': } }
notify { 'top': }
include b, a
include ['d', 'c']
require e
