# `include` is idempotent: a second include (and an include from another class)
# does not re-declare the class nor move it; the class keeps the position of
# its first declaration.
class c { notify { 'c-1': } }
class other { include c notify { 'other-1': } }
notify { 'top-1': }
include c
notify { 'top-2': }
include other
include c
