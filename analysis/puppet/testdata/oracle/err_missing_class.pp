# require => Class['nope'] for a class that exists nowhere: same message
# shape as for resources, with the class name capitalised.
notify { 'a': require => Class['nope'] }
