# Two packages of one name and one provider: Puppet cannot alias the
# second to the key the first holds.
package { 'rspec-puppet-local': ensure => latest, name => 'rspec-puppet', provider => gem }
package { 'rspec-puppet': ensure => latest, provider => gem }
