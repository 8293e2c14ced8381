# A cycle through a define instance: the instance requires 'b', and 'b'
# requires a resource inside the instance. Puppet names the define anchor.
define d() { notify { "in-${title}": } }
d { 'i': require => Notify['b'] }
notify { 'b': require => Notify['in-i'] }
