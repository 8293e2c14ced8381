# An override through a collector, Notify <| tag == 'grp' |> { before => ... },
# REPLACES the metaparameter on every match (g2 loses before => other), and
# needs no inheritance even where the parameter was already set.
notify { 'target': }
notify { 'other': }
notify { 'g1': tag => 'grp' }
notify { 'g2': tag => 'grp', before => Notify['other'] }
Notify <| tag == 'grp' |> { before => Notify['target'] }
