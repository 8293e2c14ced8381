# `~>` to a class and from a class: a change inside 'cfg' refreshes the class
# 'svc' as a whole (each refreshable resource in it). The event source is
# shown as Class[Cfg]/Class[Svc].
class cfg { notify { 'cfg-change': } }
class svc { exec { 'svc-restart': command => '/bin/true', refreshonly => true } }
include svc
include cfg
exec { 'after-svc': command => '/bin/true', refreshonly => true }
Class['cfg'] ~> Class['svc'] ~> Exec['after-svc']
