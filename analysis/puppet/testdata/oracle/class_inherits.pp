# Class inheritance: including the child first declares the parent class, so
# the parent's resources enter the catalog before the child's, even though
# the child's body is written first.
class child inherits parent { notify { 'child-1': } }
class parent { notify { 'parent-1': } }
notify { 'top': }
include child
notify { 'top-2': }
