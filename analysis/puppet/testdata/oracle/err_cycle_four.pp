# A cycle of 4 built from require, ->, <- and subscribe:
# w -> x -> y -> z -> w. Shows where Puppet starts the printed path.
notify { 'w': require => Notify['z'] }
notify { 'x': }
notify { 'y': }
notify { 'z': subscribe => Notify['y'] }
Notify['w'] -> Notify['x']
Notify['y'] <- Notify['x']
