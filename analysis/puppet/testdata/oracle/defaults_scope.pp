# Resource defaults are dynamically scoped: a default set at top scope also
# applies inside classes declared there. Notify { before => ... } makes every
# notify (top level and in class c) run before Exec['last'].
Notify { before => Exec['last'] }
class c { notify { 'in-class': } }
exec { 'last': command => '/bin/true' }
include c
notify { 'top': }
