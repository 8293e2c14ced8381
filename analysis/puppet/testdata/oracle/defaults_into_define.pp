# Resource defaults are dynamically scoped into define bodies: a default set
# in class c applies to the notify inside the define instance declared in c,
# but not to a define instance declared at top scope.
define d() { notify { "in-${title}": } }
class c {
  Notify { before => Notify['gate'] }
  d { 'from-class': }
}
d { 'from-top': }
notify { 'gate': }
include c
