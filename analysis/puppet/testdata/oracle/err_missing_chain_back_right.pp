# A reversed arrow <- with the missing resource written on the right:
# Notify['nope'] <- Notify['a'] means a -> nope.
notify { 'a': }
Notify['nope'] <- Notify['a']
