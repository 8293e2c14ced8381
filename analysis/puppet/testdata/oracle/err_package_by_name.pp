# A package is not found by its name when titled otherwise (the name is
# part of a key that holds the provider).
package { 'rspec-puppet-local': ensure => latest, name => 'rspec-puppet', provider => gem }
notify { 'n': require => Package['rspec-puppet'] }
