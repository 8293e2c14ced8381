# before => a resource that is not declared: the error names the parameter
# 'before' and the line of the resource that carries it.
notify { 'a': }
notify { 'b': before => Notify['nope'] }
