# An undefined variable in a title is not an error in Puppet 7 (strict
# variables off): a warning "Unknown variable: 'undefined_var'." and the
# empty string, so the title is 'pre-' and the reference resolves.
notify { "pre-${undefined_var}": }
notify { 'b': require => Notify['pre-'] }
