# Puppet 3's import is an evaluation error since Puppet 4 (oslcat,
# slillibri).
import 'nodes/*.pp'
notify { 'a': }
