package puppet

import "strings"

// reservedTypeNames are the data types Puppet 7's validator will not let a
// class or define be named after (its RESERVED_TYPE_NAMES; `type` is a
// keyword and fails earlier). Checked with the oracle: `define unit` is
// refused, `define binary`, `define data` and `define foo::integer` are not.
var reservedTypeNames = map[string]bool{
	"any": true, "array": true, "boolean": true, "collection": true, "enum": true, "float": true,
	"hash": true, "init": true, "integer": true, "numeric": true, "object": true, "optional": true,
	"pattern": true, "regexp": true, "runtime": true, "scalar": true, "semver": true,
	"semverrange": true, "sensitive": true, "string": true, "struct": true, "timespan": true,
	"timestamp": true, "tuple": true, "typeset": true, "unit": true, "variant": true,
}

// validate reports what Puppet's validator refuses in a tree that parsed,
// in Puppet's words, at the keyword where Puppet reports it: reserved
// names, then nested definitions. Both look at one top-level statement
// at a time, so a parallel parse validates its batches on the workers.
func validate(stmts []Node) []Error {
	return append(topLevelChecks(stmts), nestedDefinitions(stmts, true)...)
}

// topLevelChecks reports what Puppet's validator refuses in top-level
// definitions: classes and defines named after a data type or with a
// name no class may have (`class grid-site`), and node
// inheritance (the grammar still reads `node x inherits y`, Puppet 4 and
// later refuse it at the parent's name).
func topLevelChecks(stmts []Node) []Error {
	var errs []Error
	for _, s := range stmts {
		var name, what string
		var at Loc
		switch t := s.(type) {
		case *NodeDef:
			if t.Parent != nil {
				errs = append(errs, Error{Loc: *t.Parent.Span(), Msg: "Node inheritance is not supported in Puppet >= 4.0.0. See http://links.puppet.com/puppet-node-inheritance-deprecation"})
			}
			continue
		case *ClassDef:
			name, what, at = t.Name, "a Host Class Definition", Loc{t.Pos, t.Pos + len("class")}
			errs = dupParams(errs, t.Params)
		case *DefineDef:
			name, what, at = t.Name, "a 'define' expression", Loc{t.Pos, t.Pos + len("define")}
			errs = dupParams(errs, t.Params)
		case *FunctionDef:
			errs = dupParams(errs, t.Params)
			continue
		default:
			continue
		}
		if reservedTypeNames[strings.ToLower(name)] {
			errs = append(errs, Error{Loc: at, Msg: "The name: '" + name + "' is already defined by Puppet and can not be used as the name of " + what + "."})
		} else if unacceptableName(name) {
			errs = append(errs, Error{Loc: at, Msg: "Unacceptable name. The name '" + name + "' is unacceptable as the name of " + what})
		}
	}
	return errs
}

// dupParams: a parameter named twice in one list is Puppet's validation
// error, at the second ("The parameter 'dashboard_config' is declared more
// than once in the parameter list": ifireball's vendored
// puppet-dashboard, whose class then never loads).
func dupParams(errs []Error, ps []*Param) []Error {
	for i, p := range ps {
		for _, q := range ps[:i] {
			if q.Name == p.Name {
				errs = append(errs, Error{Loc: p.Loc, Msg: "The parameter '" + p.Name + "' is declared more than once in the parameter list"})
				break
			}
		}
	}
	return errs
}

// nestedDefinitions: a class, define or node may stand at top level or
// directly in a class body; anywhere else (in a conditional, a define, a
// lambda) Puppet refuses the manifest, in these words (checked with the
// oracle: `if $x { class foo { } }`, a class in a define). A plan's
// `apply(targets) { }` block is the top level of the catalog it compiles:
// a node definition may stand directly in it (Puppet's TasksChecker,
// PUP-10223; Bolt matches it against each target's name), not deeper
// (`puppet parser validate --tasks`: `apply($t) { node default { } }`
// passes, the same node in an `if` of the block is refused).
func nestedDefinitions(stmts []Node, allowed bool) []Error {
	var errs []Error
	for _, s := range stmts {
		if c, ok := s.(*ClassDef); ok && allowed {
			errs = append(errs, nestedDefinitions(c.Body, true)...)
			continue
		}
		if allowed {
			switch s.(type) {
			case *DefineDef, *NodeDef:
				walkNested(s, &errs, true)
				continue
			}
		}
		walkNested(s, &errs, false)
	}
	return errs
}

// walkNested reports every definition below n (n itself too unless
// skipSelf), without looking inside the ones it reports.
func walkNested(n Node, errs *[]Error, skipSelf bool) {
	walkNestedIn(n, errs, skipSelf, false)
}

// walkNestedIn is walkNested; inPlan: n is in a plan's body, where
// `apply(targets) { }` is an apply block.
func walkNestedIn(n Node, errs *[]Error, skipSelf, inPlan bool) {
	Walk(n, func(m Node) bool {
		if skipSelf && m == n {
			return true
		}
		var at int
		switch t := m.(type) {
		case *Block:
			if t.Keyword != "plan" || inPlan || m == n && skipSelf {
				return true
			}
			walkNestedIn(t, errs, true, true)
			return false
		case *Call:
			if !inPlan || !isApplyBlock(t) {
				return true
			}
			for _, a := range t.Args {
				walkNestedIn(a, errs, false, true)
			}
			for _, s := range t.Lambda.Body {
				_, node := s.(*NodeDef)
				walkNestedIn(s, errs, node, true)
			}
			return false
		case *Var:
			if e, bad := illegalVarName(t); bad {
				*errs = append(*errs, e)
			}
			return true
		case *ClassDef:
			at = t.Pos
		case *DefineDef:
			at = t.Pos
		case *NodeDef:
			at = t.Pos
		default:
			return true
		}
		*errs = append(*errs, Error{Loc: Loc{at, at + 1}, Msg: "Classes, definitions, and nodes may only appear at toplevel or inside other classes"})
		return false
	})
}

// isApplyBlock: c, in a plan's body, is `apply(targets) { }` (the grammar
// reads `apply(...) {` as one only there, and gives it a lambda without
// parameters).
func isApplyBlock(c *Call) bool {
	return c.Name == "apply" && c.Lambda != nil && len(c.Lambda.Params) == 0
}

// illegalVarName is Puppet's validation error for a variable whose name
// breaks its rule (checker4_0.rb check_VariableExpression: VAR_NAME, or
// a decimal number): "$HOME" in a string (a shell snippet: nthorne's
// direnv.pp), `$Foo = 1`. The file does not load. (`${USER}` is a type
// reference, not a variable, and passes.) The walk that finds nested
// definitions finds them, so class parameters' defaults are not looked at.
func illegalVarName(v *Var) (Error, bool) {
	name := v.Name
	if name == "" {
		return Error{}, false
	}
	if name[0] >= '0' && name[0] <= '9' {
		if name == "0" || name[0] != '0' && allDigits(name) {
			return Error{}, false
		}
		return Error{Loc: v.Loc, Msg: "Illegal numeric variable name, The given name '" + name + "' must be a decimal value if it starts with a digit 0-9"}, true
	}
	if varNameOK(name) {
		return Error{}, false
	}
	return Error{Loc: v.Loc, Msg: "Illegal variable name, The given name '" + name + "' does not conform to the naming rule /^((::)?[a-z]\\w*)*((::)?[a-z_]\\w*)$/"}, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// varNameOK is Puppet's VAR_NAME: \A(?:::)?(?:[a-z]\w*::)*[a-z_]\w*\z.
func varNameOK(name string) bool {
	segs := strings.Split(strings.TrimPrefix(name, "::"), "::")
	for i, seg := range segs {
		if seg == "" {
			return false
		}
		c := seg[0]
		if !(c >= 'a' && c <= 'z' || c == '_' && i == len(segs)-1) {
			return false
		}
		for j := 1; j < len(seg); j++ {
			c := seg[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// unacceptableName: a class or define name Puppet's validator refuses
// (each segment starts with a lower-case letter and holds no hyphen:
// unicore-life's grid-site, slillibri's ruby-shadow; `puppet parser
// validate` says "Unacceptable name").
func unacceptableName(name string) bool {
	for _, seg := range strings.Split(strings.TrimPrefix(name, "::"), "::") {
		if strings.HasPrefix(seg, "_") || strings.Contains(seg, "-") {
			return true
		}
	}
	return false
}
