# A metaparameter given a STRING "Notify[b]" instead of a reference: Puppet 7
# accepts it as a reference, without any warning, and orders 'a' after 'b'.
notify { 'a': require => 'Notify[b]' }
notify { 'b': }
