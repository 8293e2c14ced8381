# A notify arrow ~> to an undeclared resource.
notify { 'a': }
Notify['a'] ~> Exec['nope']
