# Puppet 6 moved nagios_command (and mailalias, k5login, computer, mcx...)
# out of its core into modules puppet-agent does not bundle: without
# puppetlabs-nagios_core Puppet 7 stops at the resource.
notify { 'before': }
nagios_command { 'check_ping': command_line => '/usr/lib/nagios/plugins/check_ping' }
