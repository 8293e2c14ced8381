# Class parameters: `class { 'x': param => ... }` passes a value used in a
# title and a relationship target; the default is used when not passed
# (class y). Class-level `require =>` on a resource-like declaration.
class x($name_suffix = 'dflt', $after = 'none') {
  notify { "x-${name_suffix}": before => Notify[$after] }
}
class y($msg = 'dflt') { notify { "y-${msg}": } }
notify { 'n1': }
class { 'x': name_suffix => 'given', after => 'n1' }
class { 'y': require => Notify['n2'] }
notify { 'n2': }
