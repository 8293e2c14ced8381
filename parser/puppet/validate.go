package puppet

import "strings"

// reservedNames are the data types Puppet 7's validator will not let a
// class or define be named after (its RESERVED_TYPE_NAMES; `type` is a
// keyword and fails earlier). Checked with the oracle: `define unit` is
// refused, `define binary`, `define data` and `define foo::integer` are not.
var reservedNames = map[string]bool{
	"any": true, "array": true, "boolean": true, "collection": true, "enum": true, "float": true,
	"hash": true, "init": true, "integer": true, "numeric": true, "object": true, "optional": true,
	"pattern": true, "regexp": true, "runtime": true, "scalar": true, "semver": true,
	"semverrange": true, "sensitive": true, "string": true, "struct": true, "timespan": true,
	"timestamp": true, "tuple": true, "typeset": true, "unit": true, "variant": true,
}

// validate reports what Puppet's validator refuses in a tree that parsed,
// in Puppet's words, at the keyword where Puppet reports it.
func validate(stmts []Node) []Error {
	var errs []Error
	for _, s := range stmts {
		var name, what string
		var at Loc
		switch t := s.(type) {
		case *ClassDef:
			name, what, at = t.Name, "a Host Class Definition", Loc{t.Pos, t.Pos + len("class")}
		case *DefineDef:
			name, what, at = t.Name, "a 'define' expression", Loc{t.Pos, t.Pos + len("define")}
		default:
			continue
		}
		if reservedNames[strings.ToLower(name)] {
			errs = append(errs, Error{Loc: at, Msg: "The name: '" + name + "' is already defined by Puppet and can not be used as the name of " + what + "."})
		}
	}
	return errs
}
