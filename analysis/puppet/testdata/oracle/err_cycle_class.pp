# A cycle through class anchors: Class[a] contains 'a-1', which requires
# 'top', which requires Class[a]. Puppet prints the anchor as Class[A]
# (capitalised), in the cycle message.
class a { notify { 'a-1': require => Notify['top'] } }
include a
notify { 'top': require => Class['a'] }
