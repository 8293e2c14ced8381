# A class: the graph view draws it as a box around its resources, folded at first.
class grp {
  file { '/tmp/g1': }
  file { '/tmp/g2': require => File['/tmp/g1'] }
}
