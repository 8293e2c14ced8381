# Class['x'] refers to a class that is defined but never declared (no include):
# the reference does not declare it; Puppet reports a missing resource.
class x { notify { 'x-1': } }
notify { 'a': require => Class['x'] }
