# A package without a provider is found by its name while compiling (its
# key holds no provider then), and not when applying, where the provider
# is the platform's: Puppet fails there.
package { 'pkg': name => 'nginx-full' }
notify { 'x': require => Package['nginx-full'] }
