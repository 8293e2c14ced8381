# Stages ordered with a chaining arrow instead of metaparameters; a class in
# the first stage and an included class (no stage: main) declared earlier.
stage { 'first': }
Stage['first'] -> Stage['main']
class a { notify { 'a-1': } }
class b { notify { 'b-1': } }
include b
class { 'a': stage => 'first' }
notify { 'plain': }
