# A reversed arrow <- with the missing resource written on the left:
# 'Notify[a]' <- 'Notify[nope]' means nope -> a.
notify { 'a': }
Notify['a'] <- Notify['nope']
