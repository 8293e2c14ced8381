# The generic reference Resource['notify', 'b'] (type name as a string) is
# the same as Notify['b']; it works in metaparameters and in chains.
notify { 'a': require => Resource['notify', 'b'] }
notify { 'b': }
Resource['Notify', 'c'] -> Notify['b']
notify { 'c': }
