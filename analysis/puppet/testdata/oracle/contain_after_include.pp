# `contain` of a class that is already included: the class is not re-declared
# (keeps its catalog position) but becomes contained in 'outer', so 'mid'
# (require => Class['outer']) now also waits for inner-1, hence for 'gate'.
class inner { notify { 'inner-1': require => Notify['gate'] } }
class outer { contain inner  notify { 'outer-1': } }
notify { 'first': }
include inner
notify { 'mid': require => Class['outer'] }
include outer
notify { 'gate': }
