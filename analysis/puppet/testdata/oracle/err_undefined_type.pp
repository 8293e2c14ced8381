# A resource of a type that does not exist (no such define or builtin): a
# compile error naming the type.
notify { 'a': }
nosuchtype { 'b': }
