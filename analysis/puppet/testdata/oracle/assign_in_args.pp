# A call's arguments, an array's elements and a hash's values are
# assignments in Puppet's grammar: `=` and the chaining arrows work there,
# and the relationships they make order the run.
notify { 'first': }
notify { 'second': }
notify { 'third': }
notice($x = 'assigned')
notify { "uses ${x}": }
$pair = [Notify['third'] -> Notify['second'], 2]
$h = { edge => Notify['second'] -> Notify['first'], y => $z = 'z' }
notify { "and ${z}": }
notice(Notify["uses ${x}"] <- Notify["and ${z}"])
