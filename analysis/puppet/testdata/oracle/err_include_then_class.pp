# `include x` followed by the resource-like `class { 'x': }` is an error (the
# class is already declared); the other order (class {} then include) is fine.
class x { notify { 'x-1': } }
include x
class { 'x': }
