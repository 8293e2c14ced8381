# A class assigned to stage 'pre' includes another class: the included class
# takes the includer's stage (Puppet uses scope.resource[:stage] when adding a
# class to a stage), so 'helper-1' runs in 'pre', before 'main-1'.
stage { 'pre': before => Stage['main'] }
class helper { notify { 'helper-1': } }
class early { include helper  notify { 'early-1': } }
notify { 'main-1': }
class { 'early': stage => pre }
