# include of a class that does not exist anywhere (no module path): a compile
# error with Puppet's wording.
notify { 'a': }
include nosuchclass
