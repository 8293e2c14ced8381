# `before` on one side and `require` on the other for the same pair (the
# same edge twice) is not a cycle and not an error: one edge.
notify { 'second': require => Notify['first'] }
notify { 'first': before => Notify['second'] }
notify { 'other': }
