# `contain` inside a define: the class is declared when the define body is
# evaluated (after main code) and is contained in the instance, so 'after'
# (require => Wrap['w']) waits for inner-1 too; 'free' is unconstrained.
class inner { notify { 'inner-1': } }
define wrap() {
  notify { "wrap-${title}": }
  contain inner
}
wrap { 'w': }
notify { 'after': require => Wrap['w'] }
notify { 'free': }
