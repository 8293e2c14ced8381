# Puppet's validator refuses a variable name with a capital, in a string
# too (a shell snippet: nthorne/puppet-manifests' direnv.pp); `${USER}`
# is a type reference and passes.
file { '/tmp/x':
  content => "source $HOME/.profile\n",
}
notify { "user ${USER}": }
$Foo = 1
$ok_1 = 2
notify { "${ok_1}": }
