# A class reference's title is lower-cased and its leading `::` dropped
# before Puppet checks it: Class['::B'] and Class['A'] name b and a.
class a { notify { 'a': } }
class b { notify { 'b': } }
include a
include b
Class['::B'] -> Class['A']
