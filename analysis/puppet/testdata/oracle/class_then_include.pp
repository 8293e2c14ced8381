# `class { 'x': }` followed by `include x` is accepted: include of an already
# declared class is a no-op (contrast with err_include_then_class).
class x($p = 'd') { notify { "x-${p}": } }
class { 'x': p => 'given' }
include x
notify { 'after': }
