# A class assigned to a stage that is not declared: compile error naming the
# stage and the class.
class x { notify { 'x-1': } }
class { 'x': stage => 'nope' }
