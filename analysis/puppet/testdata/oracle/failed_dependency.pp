# A failing resource skips everything that depends on it, transitively. In
# --noop nothing fails (NAME.order/.detail); NAME.real is `--real --detail`:
# 'fails' failed, 'dep' and 'dep-of-dep' skipped, 'indep' still applied.
exec { 'fails': command => '/bin/false' }
notify { 'dep': require => Exec['fails'] }
notify { 'dep-of-dep': require => Notify['dep'] }
notify { 'indep': }
