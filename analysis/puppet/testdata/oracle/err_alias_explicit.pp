# An explicit alias another resource's title already is.
service { 'z': }
service { 'b': alias => 'z' }
