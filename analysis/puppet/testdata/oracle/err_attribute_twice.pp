# An attribute written twice in one body (nefarioustim: two ensure).
notify { 'a':
  message => 'x',
  message => 'y',
}
