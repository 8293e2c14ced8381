# A relationship of a resource with itself is a cycle Puppet refuses.
notify{'a':}
notify{'b':}
Notify['a'] -> Notify['a']
