# Not every type name is reserved: binary, data and a qualified foo::string are fine.
define binary() { notify { "b-${title}": } }
class data { }
class foo::string { }
include data, foo::string
binary { 'x': }
notify { 'ok': }
