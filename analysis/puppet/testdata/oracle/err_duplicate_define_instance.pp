# The same define instance declared twice: Duplicate declaration of D[x].
define d() { notify { "in-${title}": } }
d { 'x': }
d { 'x': }
