# Puppet only finds this cycle when an agent applies the catalog.
notify { 'a': require => Notify['b'] }
notify { 'b': require => Notify['a'] }

notify { 'c': before => Notify['d'] }
notify { 'd': }
