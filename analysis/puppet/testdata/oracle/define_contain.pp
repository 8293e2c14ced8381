# `contain` inside a define: the contained class is ordered inside the define
# instance, so Notify[after] (which requires the instance) waits for it; the
# class is declared when the define body is evaluated (after main code).
class inner { notify { 'inner-1': } }
define wrap() {
  contain inner
  notify { "wrap-${title}": }
}
wrap { 'w': }
notify { 'after': require => Wrap['w'] }
notify { 'free': }
