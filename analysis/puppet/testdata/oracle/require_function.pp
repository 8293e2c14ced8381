# The `require` function declares a class (like include) and adds
# Class[dep] -> Class[user]: 'user-1' waits for 'dep-1' although the class
# dep is declared (and enters the catalog) after user-1.
class dep { notify { 'dep-1': } }
class user { notify { 'user-1': }  require dep }
notify { 'top': }
include user
