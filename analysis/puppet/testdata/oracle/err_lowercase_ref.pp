# A lowercase "reference" notify['Abc'] is not a resource reference: the bare
# word is a string and [..] is a substring access, a compile error.
notify { 'Abc': }
notify { 'x': require => notify['Abc'] }
