# A reversed notify arrow <~ from an undeclared resource on its right.
notify { 'a': }
Notify['a'] <~ Exec['nope']
