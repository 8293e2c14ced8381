# ... and a class (in other words); a qualified name is fine.
define foo::integer() { }
class integer { }
notify { 'ok': }
