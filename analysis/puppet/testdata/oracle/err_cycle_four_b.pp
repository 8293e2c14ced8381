# The same 4-cycle as err_cycle_four but declared in the reverse order
# (z first): shows whether the printed path starts at the first-declared
# resource.
notify { 'z': subscribe => Notify['y'] }
notify { 'y': }
notify { 'x': }
notify { 'w': require => Notify['z'] }
Notify['w'] -> Notify['x']
Notify['y'] <- Notify['x']
