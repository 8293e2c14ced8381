# A duplicate produced by two define instances declaring the same inner
# resource: the error points at the define body line for both declarations,
# and the statement is the define's resource.
define d() { notify { 'shared': } }
d { 'one': }
d { 'two': }
