package puppet

import "strings"

// Statements without effect. Puppet's validator (Checker4_0's idem
// checks) refuses a manifest where a statement produces a value nobody
// uses: a bare word, a string, a variable, an `if` whose branches hold only
// such values, a resource without a title (`notify { }`). Checked with
// Puppet 7.23, which fails to parse ("Could not parse for environment")
// on:
//   - any such statement in a class, define or node body, the last one
//     included ("... A Host Class Definition can not end with a
//     value-producing expression without other effect");
//   - any but the last of any other block (an `if` or `case` branch, a
//     lambda, a function, the file itself: the last is the block's value);
//   - `notify { }` or `notify { message => 'x' }` anywhere (the grammar
//     refuses the second already, in its own words).
//
// These are the states a resource passes through while it is typed into a
// class (`n`, `notify`, `notify {}`): reporting them as syntax errors is
// what Puppet does, and it lets the parser's recovery keep the class as it
// read before the statement was begun (recoverBody drops them), so that
// each keystroke is followed without an analysis (analysis/puppet
// follow.go).

// idem reports whether evaluating n has no effect (Checker4_0#idem):
// literals, names, variables, access, arithmetic and comparison, strings,
// selectors, and conditionals whose parts are all idem. Calls, resources,
// assignments, relationships and matches (they set $0..$n) have effects.
func idem(n Node) bool {
	switch t := n.(type) {
	case nil:
		return true
	case *Str, *Num, *Bool, *Undef, *Default, *Name, *TypeRef, *Var, *Regex,
		*Array, *Hash, *Access, *Selector, *Unary:
		return true
	case *Paren:
		return idem(t.X)
	case *Binary:
		switch t.Op {
		case "=", "+=", "-=", "->", "~>", "<-", "<~", "=~", "!~":
			return false
		}
		return true
	case *If:
		return idem(t.Cond) && allIdem(t.Then) && allIdem(t.Else)
	case *Case:
		if !idem(t.X) {
			return false
		}
		for _, o := range t.Options {
			if !allIdem(o.Values) || !allIdem(o.Body) {
				return false
			}
		}
		return true
	}
	return false
}

func allIdem(ns []Node) bool {
	for _, n := range ns {
		if !idem(n) {
			return false
		}
	}
	return true
}

// effectsError returns the first statement (in source order) Puppet's
// validator refuses for having no effect among stmts and everything below
// them, or nil. The statements themselves are not judged: whether a
// top-level statement is the file's last is known only to the whole file
// (topLevelEffects), and a class body's statements are judged as the
// class's.
func effectsError(src []byte, stmts []Node) *Error {
	var first *Error
	note := func(e Error) {
		if first == nil || e.Pos < first.Pos {
			first = &e
		}
	}
	for _, s := range stmts {
		Walk(s, func(n Node) bool {
			switch t := n.(type) {
			case *ClassDef:
				definitionBody(src, t.Body, "A Host Class Definition", note)
			case *DefineDef:
				definitionBody(src, t.Body, "A 'define' expression", note)
			case *NodeDef:
				definitionBody(src, t.Body, "A Node Definition", note)
			case *If:
				block(src, t.Then, note)
				block(src, t.Else, note)
			case *Case:
				for _, o := range t.Options {
					block(src, o.Body, note)
				}
			case *Lambda:
				block(src, t.Body, note)
			case *FunctionDef:
				block(src, t.Body, note)
			case *Block:
				block(src, t.Body, note)
			case *Resource:
				if len(t.Bodies) == 0 {
					note(untitled(src, t))
				}
			}
			return true
		})
	}
	return first
}

// topLevelEffects is the file's own block judged: any statement but the
// last that has no effect (Puppet reports the first).
func topLevelEffects(src []byte, stmts []Node) []Error {
	var errs []Error
	block(src, stmts, func(e Error) {
		if errs == nil {
			errs = append(errs, e)
		}
	})
	return errs
}

// block judges a block whose value is its last statement.
func block(src []byte, body []Node, note func(Error)) {
	for i := 0; i+1 < len(body); i++ {
		if s := body[i]; idem(s) {
			note(Error{Loc: effectLoc(s), Msg: "This " + effectLabel(src, s) + " has no effect. A value was produced and then forgotten (one or more preceding expressions may have the wrong form)"})
			return
		}
	}
}

// definitionBody judges a class, define or node body: none of its
// statements may be idem.
func definitionBody(src []byte, body []Node, container string, note func(Error)) {
	for i, s := range body {
		if !idem(s) {
			continue
		}
		msg := "This " + effectLabel(src, s) + " has no effect. "
		if i+1 < len(body) {
			msg += "A value was produced and then forgotten (one or more preceding expressions may have the wrong form)"
		} else {
			msg += container + " can not end with a value-producing expression without other effect"
		}
		note(Error{Loc: effectLoc(s), Msg: msg})
	}
}

// droppedFromDefinition reports whether a statement of a class, define or
// node body goes when the body is read statement by statement after an
// error (recoverBody): one without effect, as Puppet refuses it.
func droppedFromDefinition(s Node) bool {
	return idem(s) || isUntitled(s)
}

func isUntitled(n Node) bool {
	r, ok := n.(*Resource)
	return ok && len(r.Bodies) == 0
}

// untitled is the error of a resource declared without a title, in the
// words of Puppet's validator, or of its grammar for a virtual or
// exported one.
func untitled(src []byte, r *Resource) Error {
	msg := "This expression is invalid. Did you try declaring a '" + string(src[r.TypeLoc.Pos:r.TypeLoc.End]) + "' resource without a title?"
	switch {
	case r.Exported:
		msg = "Exported (@@) can only be applied to a Resource Expression"
	case r.Virtual:
		msg = "Virtual (@) can only be applied to a Resource Expression"
	case r.TypeExpr != nil:
		msg = "This expression is invalid. Did you try declaring a resource without a title?"
	}
	return Error{Loc: r.Loc, Msg: msg}
}

// effectLoc is where Puppet reports a statement without effect: at its
// start, at the operator of a binary expression, and we underline the
// keyword of a conditional rather than all its lines.
func effectLoc(n Node) Loc {
	switch t := n.(type) {
	case *Binary:
		return t.OpLoc
	case *If:
		if t.Unless {
			return Loc{t.Pos, t.Pos + len("unless")}
		}
		return Loc{t.Pos, t.Pos + len("if")}
	case *Case:
		return Loc{t.Pos, t.Pos + len("case")}
	case *Selector:
		return Loc{t.Pos, t.X.Span().End}
	}
	return *n.Span()
}

// effectLabel names an expression as Puppet's model label provider does.
func effectLabel(src []byte, n Node) string {
	switch t := n.(type) {
	case *Str:
		if t.Pos < len(src) && src[t.Pos] == '@' {
			// @(EOT:syntax): the label names the syntax
			head := src[t.Pos:min(t.End, len(src))]
			syntax := ""
			if i := strings.IndexByte(string(head), ')'); i > 0 {
				if _, s, ok := strings.Cut(string(head[:i]), ":"); ok {
					syntax, _, _ = strings.Cut(s, "/")
				}
			}
			return "'@(" + syntax + ")' expression"
		}
		if t.Interpolated() {
			return "Double Quoted String"
		}
		return "String"
	case *Num:
		s := strings.ToLower(t.Text)
		if !strings.HasPrefix(s, "0x") && strings.ContainsAny(s, ".e") {
			return "Literal Float"
		}
		return "Literal Integer"
	case *Bool:
		return "Boolean"
	case *Undef:
		return "'undef' expression"
	case *Default:
		return "'default' expression"
	case *Name:
		return "Name"
	case *TypeRef:
		return "Type-Name"
	case *Var:
		return "Variable"
	case *Regex:
		return "Regular Expression"
	case *Array:
		return "Array Expression"
	case *Hash:
		return "Hash Expression"
	case *Access:
		return "'[]' expression"
	case *Selector:
		return "Selector Expression"
	case *Paren:
		return "Parenthesized Expression"
	case *Unary:
		switch t.Op {
		case "!":
			return "'not' expression"
		case "*":
			return "Unfold"
		}
		return "Unary Minus"
	case *Binary:
		return "'" + t.Op + "' expression"
	case *If:
		if t.Unless {
			return "'unless' Statement"
		}
		return "'if' statement"
	case *Case:
		return "'case' statement"
	}
	return "Expression"
}

// checkedParse is parse that also refuses what has no effect below the
// statements it reads (effectsError), so that error recovery, which tries
// the statements of a broken chunk one by one, keeps none Puppet refuses.
func checkedParse(parse func([]byte, []Token, *Token) ([]Node, *Error)) func([]byte, []Token, *Token) ([]Node, *Error) {
	return func(src []byte, toks []Token, follow *Token) ([]Node, *Error) {
		stmts, err := parse(src, toks, follow)
		if err == nil {
			err = effectsError(src, stmts)
		}
		return stmts, err
	}
}
