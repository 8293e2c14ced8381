# A defined-type body is evaluated after the main code: the define instance is
# declared before 'top-2', yet its resources enter the catalog after every
# top-level resource, so they run last when nothing orders them.
define mydef() {
  notify { "in-${title}": }
}
notify { 'top-1': }
mydef { 'x': }
notify { 'top-2': }
