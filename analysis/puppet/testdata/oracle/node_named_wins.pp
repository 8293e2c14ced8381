# A node definition naming the certname ('puppet-order', the oracle's
# certname) wins over `node default`; only its body is evaluated.
node default { notify { 'in-default': } }
node 'puppet-order' {
  notify { 'in-named': }
  include web
}
class web { notify { 'web-1': } }
notify { 'top-level': }
