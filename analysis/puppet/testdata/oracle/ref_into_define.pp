# A top-level relationship to a resource that only exists inside a define body
# (evaluated later) resolves: relationships are checked after all evaluation.
define d() { notify { "in-${title}": } }
notify { 'top': }
Notify['top'] <- Notify['in-x']
d { 'x': }
