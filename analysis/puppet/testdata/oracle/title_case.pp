# Reference titles are matched case-sensitively for notify: Notify['abc'] does
# not find the resource titled 'Abc' (missing-resource error).
notify { 'Abc': }
notify { 'x': require => Notify['Abc'] }
notify { 'y': require => Notify['abc'] }
