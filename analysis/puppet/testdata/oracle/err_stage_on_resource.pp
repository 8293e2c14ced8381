# Only classes may set `stage`: a plain resource (or define instance) with
# stage => ... is a compile error.
stage { 'pre': before => Stage['main'] }
notify { 'a': stage => 'pre' }
