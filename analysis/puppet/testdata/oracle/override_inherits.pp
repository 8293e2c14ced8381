# An override inside a class that inherits the declaring class may append to
# an already-set metaparameter with +>: 'x' keeps require 'p' and gains 'q',
# so it moves after 'q'. (Outside inheritance this is a compile error.)
class base {
  notify { 'p': }
  notify { 'x': require => Notify['p'] }
  notify { 'q': }
}
class sub inherits base {
  Notify['x'] { require +> Notify['q'] }
}
include sub
