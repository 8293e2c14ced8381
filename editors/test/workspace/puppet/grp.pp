# A class: the graph view draws it as a box around its resources, folded at first.
class grp {
  notify { 'g1': }
  notify { 'g2': require => Notify['g1'] }
}
