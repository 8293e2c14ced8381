# A reference to a missing namespaced class: the message capitalises every
# segment and drops the leading '::'.
notify { 'a': before => Class['::foo::nope'] }
