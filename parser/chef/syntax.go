package chef

// rubySyntaxError finds, in the tokens of one statement, a place where the
// text cannot be Ruby at all, as opposed to Ruby the grammar does not
// cover: only then is the statement a syntax error (chef-cli rejects the
// whole Policyfile) rather than an unsupported statement. Two cases, each
// checked against `ruby -c`:
//
//   - two literals side by side on one line, separated by blanks only
//     (`default_source :a :b`, `cookbook "x" "1.0"` is fine: adjacent
//     strings concatenate). Not after `alias` (`alias :new :old`), nor in
//     a statement holding a `?` operator, where `c ? :a :b` is a
//     conditional;
//   - `=>` right after `,`, an opening bracket or another `=>`
//     (`cookbook "x", => "y"`).
//
// It returns the index of the offending token and Ruby's word for it.
func rubySyntaxError(src []byte, toks []Tok) (int, string, bool) {
	ternary := false
	for i, t := range toks {
		if t.Kind == KOp && t.Text(src) == "?" {
			ternary = true
		}
		if i == 0 {
			continue
		}
		p := toks[i-1]
		if !ternary && literal(p.Kind) && t.Start > p.End && blanks(src[p.End:t.Start]) {
			second := ""
			switch t.Kind {
			case KSymbol:
				second = "':'"
			case KNumber:
				second = "integer literal"
				if isFloat(t.Text(src)) {
					second = "float literal"
				}
			case KString:
				if p.Kind != KString {
					second = "string literal"
				}
			}
			afterAlias := i >= 2 && toks[i-2].Kind == KIdent && toks[i-2].Text(src) == "alias"
			if second != "" && !afterAlias {
				return i, second, true
			}
		}
		if t.Kind == KPunct && t.Text(src) == "=>" {
			j := i - 1
			for j >= 0 && (toks[j].Kind == KNewline || toks[j].Kind == KComment) {
				j--
			}
			if j >= 0 {
				b := toks[j]
				switch {
				case b.Kind == KLCall || b.Kind == KLIndex,
					b.Kind == KPunct && (b.Text(src) == "," || b.Text(src) == "(" || b.Text(src) == "[" || b.Text(src) == "{" || b.Text(src) == "=>"):
					return i, "=>", true
				}
			}
		}
	}
	return 0, "", false
}

func literal(k Kind) bool {
	return k == KSymbol || k == KNumber || k == KString || k == KWords
}

func blanks(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

func isFloat(s string) bool {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'b' || s[1] == 'o') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'E' {
			return true
		}
	}
	return false
}
