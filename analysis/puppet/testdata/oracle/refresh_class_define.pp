# notify/subscribe to a class and to a define instance: the refresh reaches
# every refreshable resource inside (both execs in the class, the exec in the
# define); a subscribe FROM a resource TO a class waits for the whole class.
class svc { exec { 'svc-a': command => '/bin/true', refreshonly => true }
            exec { 'svc-b': command => '/bin/true', refreshonly => true } }
define site() { exec { "site-${title}": command => '/bin/true', refreshonly => true } }
class cfg { notify { 'cfg-1': } }
include svc
include cfg
site { 's1': subscribe => Notify['trigger'] }
notify { 'trigger': notify => Class['svc'] }
exec { 'listener': command => '/bin/true', refreshonly => true, subscribe => Class['cfg'] }
