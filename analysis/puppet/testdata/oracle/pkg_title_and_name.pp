# A package's title and another package's name do not meet: package
# 'logstash' named logstash-oss and package 'logstash-old-name' named
# logstash (operations-puppet's gelf_relay) are both declared.
package { 'logstash': ensure => present, name => 'logstash-oss' }
package { 'logstash-old-name': ensure => absent, name => 'logstash', before => Package['logstash'] }
