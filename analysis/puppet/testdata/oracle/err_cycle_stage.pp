# A resource in stage 'pre' that requires a resource in Stage[main] while pre
# runs before main: a dependency cycle through the stage anchors, printed as
# Stage[pre]/Stage[main] and Class[Early].
stage { 'pre': before => Stage['main'] }
class early { notify { 'early-1': require => Notify['main-1'] } }
notify { 'main-1': }
class { 'early': stage => pre }
