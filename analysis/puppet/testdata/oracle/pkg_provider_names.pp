# A package's uniqueness key is its name and its provider: gem's and pip's
# rspec-puppet may both be declared (ppouliot/puppet-profiles), and so may
# a package with a provider beside one without.
package { 'rspec-puppet-local': ensure => latest, name => 'rspec-puppet', provider => gem }
package { 'rspec-puppet': ensure => latest, provider => pip }
package { 'yaml-gem': ensure => latest, name => 'yaml', provider => gem }
package { 'yaml': ensure => latest }
