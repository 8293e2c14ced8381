# A duplicate between a class body and a top-level resource: the class is
# declared (include) after the top-level resource, so the class body is the
# redeclaration.
class c { notify { 'dup': } }
notify { 'dup': }
include c
