# A class in a define's body: refused too.
define d() { class c { } }
notify{'a':}
