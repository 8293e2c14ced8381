# Namespaced classes: Class['::foo::bar'] resolves to the class declared by
# `include ::foo::bar`; Class['Foo'] reaches foo::baz, contained by foo.
# (A missing one prints every segment capitalised: err_missing_namespaced.)
class foo::bar { notify { 'bar-1': } }
class foo::baz { notify { 'baz-1': } }
class foo { contain foo::baz  notify { 'foo-1': } }
notify { 'first': require => Class['::foo::bar'] }
notify { 'second': require => Class['Foo'] }
include ::foo::bar
include foo
