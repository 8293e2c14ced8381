# Relationships to and from a define instance: an edge to Mydef['x'] reaches
# every resource inside it (begin/end anchors); a resource inside the body can
# also point outward with require.
define mydef() {
  notify { "${title}-a": }
  notify { "${title}-b": require => Notify['outside'] }
}
mydef { 'x': before => Notify['first'] }
notify { 'first': }
notify { 'outside': }
mydef { 'y': }
Notify['first'] -> Mydef['y']
