# One body, several titles: notify { ['a','b']: } declares two resources in
# array order, sharing the attributes (including a metaparameter).
notify { 'z': }
notify { ['b', 'a']: before => Notify['z'] }
notify { 'c': }
