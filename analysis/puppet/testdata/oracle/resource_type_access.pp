# Resource['notify'] { 'title': } and Resource[Notify] { ... } declare resources
# (the type is the key), they are not overrides.
Resource['notify'] { 'a': }
Resource[Notify] { 'b': before => Notify['a'] }
