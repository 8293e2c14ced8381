# Two missing targets: Puppet stops at the first one it checks (catalog order:
# the first declared resource, not the alphabetically smallest target) and
# reports only that one.
notify { 'a': require => Notify['zz-nope'] }
notify { 'b': require => Notify['aa-nope'] }
