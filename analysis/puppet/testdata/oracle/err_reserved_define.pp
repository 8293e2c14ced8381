# Puppet's validator refuses a define named after one of its data types.
define unit() { }
notify { 'ok': }
