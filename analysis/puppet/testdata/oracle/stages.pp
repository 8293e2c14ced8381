# Run stages: stage 'pre' before Stage['main'] and 'post' after it. A class
# assigned to a stage with `class { 'x': stage => pre }` runs with that stage,
# even though it is declared last; unstaged resources belong to Stage[main].
stage { 'pre':  before  => Stage['main'] }
stage { 'post': require => Stage['main'] }
class early { notify { 'early-1': } }
class late  { notify { 'late-1': } }
notify { 'main-1': }
class { 'late':  stage => post }
notify { 'main-2': }
class { 'early': stage => pre }
