# notify => an undeclared resource, in a multi-line resource: the error names
# parameter 'notify' and gives the line of the ATTRIBUTE (7), not of the
# resource title (5).
notify { 'a': }
notify { 'b':
  message => 'x',
  notify  => Exec['nope'],
}
