# A class or define declared in a node block sees the node's variables
# (Puppet's enclosing scope: the nearest node or top scope above the
# declaration); a class declared at top scope sees only the top scope.
# remotesyssupport/puppet-config: $db_name set in a node, a class's
# "/srv/db2/${db_name}" read as "/srv/db2/": a false duplicate.
class early {
  notify { "early sees '${db_name}'": }
}
class abcdatabase {
  include abcdatabase::dump
  file { '/srv/db2': ensure => directory }
  file { "/srv/db2/${db_name}": ensure => directory }
}
class abcdatabase::dump {
  notify { "dump ${db_name}": }
}
define site::vhost() {
  notify { "vhost ${title} of ${db_name}": }
}
include early
node default {
  $db_name = 'ABC'
  include abcdatabase
  site::vhost { 'www': }
}
