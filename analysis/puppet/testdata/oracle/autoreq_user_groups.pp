# A user autorequires its primary group (gid) and every group in `groups`;
# groups declared after the user still run first. 'po-unmanaged' is not
# managed, so nothing is required for it (no error).
user  { 'po-u': ensure => present, gid => 'po-prim', groups => ['po-g1', 'po-g2', 'po-unmanaged'] }
notify { 'mid': }
group { 'po-g2': ensure => present }
group { 'po-g1': ensure => present }
group { 'po-prim': ensure => present }
