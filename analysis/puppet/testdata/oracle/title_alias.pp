# The alias metaparameter gives a resource a second name usable in
# references: Notify['short'] resolves to Notify['long-name'].
notify { 'first': require => Notify['short'] }
notify { 'long-name': alias => 'short' }
Notify['short'] -> Notify['zz']
notify { 'zz': }
