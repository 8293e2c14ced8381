# A class in a conditional: Puppet refuses the manifest.
if $x { class foo { } }
notify{'a':}
