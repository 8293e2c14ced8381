package cfengine

import "bytes"

// LexKind is what a token of Lex is.
type LexKind uint8

const (
	LKeyword      LexKind = iota + 1 // bundle, body, promise
	LIdent                           // a name: type, block name, attribute, function, body or bundle reference
	LString                          // a quoted string
	LVar                             // $(x), ${x}, @(x): naked, or inside a string (nested in it)
	LClassGuard                      // linux.!windows::, "$(x)"::
	LPromiseGuard                    // vars:
	LArrow                           // => and ->
	LPunct                           // { } ( ) , ;
	LComment                         // # ...
	LMacro                           // an @if / @else / @endif line
)

// LexToken is one token of Lex.
type LexToken struct {
	Span
	Kind LexKind
}

// Lex tokenises a whole policy file for highlighting with the parser's
// lexer: the macros evaluated for version as Parse does (macro lines are
// LMacro tokens; the text a false @if leaves out gives no token), comments
// kept, variables inside strings given as tokens of their own after the
// string's, and a character the lexer refuses skipped (it goes on after
// it).
func Lex(text []byte, version string) []LexToken {
	if version == "" {
		version = DefaultVersion
	}
	masked, ignored, _ := maskMacros(text, version)
	var out []LexToken
	for _, ig := range ignored {
		for ls := ig.Start; ls < ig.End; {
			le := bytes.IndexByte(text[ls:ig.End], '\n')
			if le < 0 {
				le = ig.End
			} else {
				le += ls
			}
			if text[ls] == '@' {
				out = append(out, LexToken{Span{ls, le}, LMacro})
			}
			ls = le + 1
		}
	}
	var comments []Span
	for i := 0; i < len(masked); {
		toks, err := lex(masked, i, len(masked), &comments)
		for _, t := range toks {
			k := LPunct
			switch t.typ {
			case tKeyword:
				k = LKeyword
			case tIdent:
				k = LIdent
			case tString:
				k = LString
			case tNakedVar:
				k = LVar
			case tClassGuard, tVarClass:
				k = LClassGuard
			case tPromiseGuard:
				k = LPromiseGuard
			case tFatArrow, tThinArrow:
				k = LArrow
			}
			out = append(out, LexToken{Span{t.start, t.end}, k})
			if t.typ == tString || t.typ == tVarClass {
				out = stringVars(out, masked, t.start+1, t.end-1)
			}
		}
		if err == nil {
			break
		}
		i = err.at + 1
	}
	for _, c := range comments {
		out = append(out, LexToken{c, LComment})
	}
	return out
}

// stringVars appends the variables written inside text[a:b] (a string's
// content), as the lexer reads naked ones.
func stringVars(out []LexToken, text []byte, a, b int) []LexToken {
	for i := a; i+1 < b; i++ {
		if (text[i] == '$' || text[i] == '@') && (text[i+1] == '(' || text[i+1] == '{') {
			if n := scanNakedVar(text, i, b); n > 0 {
				out = append(out, LexToken{Span{i, i + n}, LVar})
				i += n - 1
			}
		}
	}
	return out
}
