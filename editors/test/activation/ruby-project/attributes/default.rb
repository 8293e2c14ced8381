default['nginx']['port'] = 80
