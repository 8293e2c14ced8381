# A class: the graph view draws it as a box around its resources (a graph this small opens
# unfolded); a click folds it into one node and back.
class grp {
  file { '/tmp/g1': }
  file { '/tmp/g2': require => File['/tmp/g1'] }
}
