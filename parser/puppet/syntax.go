package puppet

import (
	"fmt"
	"strings"
)

// What the parser (the participle grammar, grammar.go and
// grammar_convert.go) shares with the hand-written parser it replaced,
// kept as the differential tests' oracle (hand_test.go).

// maxDepth bounds expression nesting: deeper input is a syntax error,
// never a stack overflow.
const maxDepth = 400

// Error is a syntax error at a byte range.
type Error struct {
	Loc
	Msg string
}

func (e Error) Error() string { return e.Msg }

// statementCalls are the functions Puppet lets you call without
// parentheses as a statement (`include a, b`).
var statementCalls = map[string]bool{
	"include": true, "require": true, "contain": true, "realize": true, "tag": true,
	"debug": true, "info": true, "notice": true, "warning": true, "err": true, "fail": true,
	"alert": true, "crit": true, "emerg": true, "break": true, "next": true, "return": true,
	"import": true, "hiera_include": true, "create_resources": false,
}

type bailout struct{}

// syntaxError words a syntax error at t as Puppet does ("Syntax error at
// 'x'"), at the token that follows the chunk when t is its end; both
// parsers report through it.
func syntaxError(src []byte, t, follow *Token, expected string) *Error {
	msg := ""
	at := Loc{t.Pos, t.End}
	switch {
	case t.Kind == TIllegal && t.Val != "" && isUpper(t.Val[0]):
		return &Error{Loc: at, Msg: t.Val} // Puppet's own words (lexer2.rb's lex errors)
	case t.Kind == TIllegal:
		msg = "Syntax error: " + t.Val
	case t.Kind == TEOF && follow != nil && follow.Kind != TEOF:
		msg = fmt.Sprintf("Syntax error at '%s'", tokenText(src, follow))
		at = Loc{follow.Pos, follow.End}
	case t.Kind == TEOF:
		msg = "Syntax error at end of input"
	default:
		msg = fmt.Sprintf("Syntax error at '%s'", tokenText(src, t))
	}
	if expected != "" {
		msg += "; " + expected
	}
	return &Error{Loc: at, Msg: msg}
}

// tokenText is the token as Puppet's parser names it (the value of its
// token, parser_support.rb on_error): a variable without its '$', a
// string's text without quotes or escapes, an interpolated string's text
// before its first interpolation, a regex as Ruby prints a Regexp; other
// tokens (and heredocs) as written. Cut at a newline or 40 bytes.
func tokenText(src []byte, t *Token) string {
	s := string(src[t.Pos:t.End])
	heredoc := strings.HasPrefix(s, "@")
	switch {
	case t.Kind == TVar:
		s = t.Val
	case t.Kind == TString && !heredoc:
		s = t.Val
	case t.Kind == TIString && !heredoc:
		s = ""
		if len(t.Parts) > 0 && !t.Parts[0].Expr {
			s = t.Parts[0].Lit
		}
	case t.Kind == TRegex:
		s = "(?-mix:" + t.Val + ")"
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

var binPrec = map[string]int{
	"->": 1, "~>": 1, "<-": 1, "<~": 1,
	"=": 2, "+=": 2, "-=": 2,
	"or": 3, "and": 4,
	"<": 5, ">": 5, "<=": 5, ">=": 5,
	"==": 6, "!=": 6,
	"<<": 7, ">>": 7,
	"+": 8, "-": 8,
	"*": 9, "/": 9, "%": 9,
	"=~": 10, "!~": 10,
	"in": 11,
}

// chunkEOF is the end token of a chunk's tokens: its last when that is
// TEOF, else one at the end of the token before it.
func chunkEOF(toks []Token) Token {
	n := len(toks) - 1
	if toks[n].Kind == TEOF {
		return toks[n]
	}
	e := toks[max(n-1, 0)].End
	return Token{Kind: TEOF, Pos: e, End: e}
}
