# Resource defaults are dynamically scoped into define bodies: the default set
# in class c reaches the notify inside the instance declared in c (it runs
# before 'gate'), but not the instance declared at top scope (after 'gate').
define d() { notify { "in-${title}": } }
class c {
  Notify { before => Notify['gate'] }
  d { 'from-class': }
}
notify { 'gate': }
include c
d { 'from-top': }
