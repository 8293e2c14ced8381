# A resource default carrying a metaparameter: every Exec in scope gets
# require => Notify['setup'], so both execs wait for 'setup' although it is
# declared last. A resource's own value overrides the default.
Exec { require => Notify['setup'] }
exec { 'e1': command => '/bin/true' }
exec { 'e2': command => '/bin/true', require => [] }
notify { 'n1': }
notify { 'setup': }
