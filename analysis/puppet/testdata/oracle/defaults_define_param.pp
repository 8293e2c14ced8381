# A default for a defined type gives its instances' parameters a value, as a
# written one would, from the instances declared after it on: 'before' keeps
# the define's own default, 'after' takes the resource default.
define d($p = 'a') { notify { "${title}-${p}": } }
d { 'before': }
D { p => 'b' }
d { 'after': }
