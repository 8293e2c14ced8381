# A cycle entering a class through its begin anchor and leaving through its end
# anchor: both anchors print as Class[A], so Class[A] appears twice in the path.
class a { notify { 'a-1': } }
include a
notify { 'x': require => Class['a'], before => Class['a'] }
