# realize() of a resource nobody declares, virtual or not, fails the
# compilation: "Failed to realize virtual resources".
@package { 'present': }
realize(Package['present'])
realize(Package['absent'])
