package cfengine

import (
	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the CFEngine 3 lexer. They follow cf3lex.l: longest
// match wins, ties go to the rule written first there.
const (
	tEOF lexer.TokenType = lexer.EOF
	// tKeyword is bundle, body or promise.
	tKeyword lexer.TokenType = iota + 1
	tIdent
	tString
	tNakedVar
	tClassGuard   // linux.!windows::
	tVarClass     // "$(x)"::
	tPromiseGuard // vars:
	tFatArrow
	tThinArrow
	tPunct
)

func symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":          tEOF,
		"Keyword":      tKeyword,
		"Ident":        tIdent,
		"String":       tString,
		"NakedVar":     tNakedVar,
		"ClassGuard":   tClassGuard,
		"VarClass":     tVarClass,
		"PromiseGuard": tPromiseGuard,
		"FatArrow":     tFatArrow,
		"ThinArrow":    tThinArrow,
		"Punct":        tPunct,
	}
}

// maxNesting bounds parentheses/braces inside one chunk so that a
// pathological input cannot exhaust the parser's recursion.
const maxNesting = 64

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isClassChar(c byte) bool {
	switch c {
	case '.', '|', '&', '!', '(', ')', ':':
		return true
	}
	return isWord(c)
}

func isLetter(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tok is one lexed token: its type and the byte range in the text.
type tok struct {
	typ        lexer.TokenType
	start, end int
}

// lexError is a character the lexer could not turn into a token.
type lexError struct {
	at  int
	msg string
}

// lex tokenises text[start:end] (already macro-masked), dropping
// whitespace and comments; comments, when set, receives the comments'
// spans (highlighting).
func lex(text []byte, start, end int, comments *[]Span) ([]tok, *lexError) {
	toks := make([]tok, 0, (end-start)/6+4)
	depth := 0
	i := start
	for i < end {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#':
			cs := i
			for i < end && text[i] != '\n' {
				i++
			}
			if comments != nil {
				*comments = append(*comments, Span{cs, i})
			}
			continue
		}
		n, typ := 0, tPunct
		switch {
		case c == '"' || c == '\'' || c == '`':
			n = scanString(text, i, end)
			if n < 0 {
				return toks, &lexError{at: i, msg: "Runaway string"}
			}
			typ = tString
			if c != '`' {
				if m := scanVarClass(text, i, end); m > n {
					n, typ = m, tVarClass
				}
			}
		case (c == '$' || c == '@') && i+1 < end && (text[i+1] == '(' || text[i+1] == '{'):
			n = scanNakedVar(text, i, end)
			if n > 0 {
				typ = tNakedVar
			} else {
				n = 1
			}
		case c == '=' && i+1 < end && text[i+1] == '>':
			n, typ = 2, tFatArrow
		case c == '-' && i+1 < end && text[i+1] == '>':
			n, typ = 2, tThinArrow
		case isClassChar(c):
			id := scanIdent(text, i, end)
			cl := scanClass(text, i, end)
			pg := 0
			if isLetter(c) {
				j := i
				for j < end && isLetter(text[j]) {
					j++
				}
				if j < end && text[j] == ':' {
					pg = j + 1 - i
				}
			}
			n = 1
			switch {
			case id >= cl && id >= pg && id > 0:
				n, typ = id, tIdent
				w := string(text[i : i+id])
				if w == "bundle" || w == "body" || w == "promise" {
					typ = tKeyword
				}
			case cl >= pg && cl > 0:
				n, typ = cl, tClassGuard
			case pg > 0:
				n, typ = pg, tPromiseGuard
			}
		default:
			n = 1
		}
		if typ == tPunct {
			switch c {
			case '(', '{':
				depth++
				if depth > maxNesting {
					return toks, &lexError{at: i, msg: "Nesting of functions is deeper than recommended"}
				}
			case ')', '}':
				depth--
			}
		}
		toks = append(toks, tok{typ: typ, start: i, end: i + n})
		i += n
	}
	return toks, nil
}

// scanString returns the length of the quoted string at i, or -1 when it
// never ends.
func scanString(text []byte, i, end int) int {
	q := text[i]
	j := i + 1
	for j < end {
		c := text[j]
		if c == '\\' && q != '`' {
			j += 2
			continue
		}
		if c == q {
			return j + 1 - i
		}
		j++
	}
	return -1
}

// scanVarClass matches `"..."::` / `'...'::` (no escapes inside).
func scanVarClass(text []byte, i, end int) int {
	q := text[i]
	j := i + 1
	for j < end && text[j] != q {
		if text[j] == 0 {
			return 0
		}
		j++
	}
	if j+2 < end && text[j] == q && text[j+1] == ':' && text[j+2] == ':' {
		return j + 3 - i
	}
	return 0
}

// scanNakedVar matches $(a.b), ${x}, @(list), $(a[$(i)]).
func scanNakedVar(text []byte, i, end int) int {
	open := text[i+1]
	closeC := byte(')')
	if open == '{' {
		closeC = '}'
	}
	j := i + 2
	depth := 0
	for j < end {
		c := text[j]
		switch {
		case c == closeC && depth == 0:
			if j == i+2 {
				return 0
			}
			return j + 1 - i
		case c == '[':
			depth++
		case c == ']':
			if depth > 0 {
				depth--
			}
		case isWord(c) || c == '.' || c == ':':
		case depth > 0 && (c == '$' || c == '(' || c == ')' || c == '{' || c == '}'):
		default:
			return 0
		}
		j++
	}
	return 0
}

func runWord(text []byte, i, end int) int {
	j := i
	for j < end && isWord(text[j]) {
		j++
	}
	return j - i
}

// scanIdent matches ([W]+:)?([W]+\.)?[W]+ (and symbol W+:W+), longest.
func scanIdent(text []byte, i, end int) int {
	n1 := runWord(text, i, end)
	if n1 == 0 {
		return 0
	}
	best := n1
	p := i + n1
	if p+1 < end && text[p] == ':' && isWord(text[p+1]) {
		q := p + 1 + runWord(text, p+1, end)
		best = max(best, q-i)
		if q+1 < end && text[q] == '.' && isWord(text[q+1]) {
			best = max(best, q+1+runWord(text, q+1, end)-i)
		}
	}
	if p+1 < end && text[p] == '.' && isWord(text[p+1]) {
		best = max(best, p+1+runWord(text, p+1, end)-i)
	}
	return best
}

// scanClass matches [.|&!()W:][\t .|&!()W:]*:: (longest).
func scanClass(text []byte, i, end int) int {
	j := i + 1
	for j < end && (isClassChar(text[j]) || text[j] == ' ' || text[j] == '\t') {
		j++
	}
	// the longest prefix ending in "::" with at least one char before it
	for k := j; k >= i+3; k-- {
		if text[k-1] == ':' && text[k-2] == ':' {
			return k - i
		}
	}
	return 0
}

// tokenStream feeds participle from a token slice.
type tokenStream struct {
	text []byte
	toks []tok
	i    int
	eof  int
	base int // added to every offset
}

func (s *tokenStream) Next() (lexer.Token, error) {
	if s.i >= len(s.toks) {
		return lexer.Token{Type: lexer.EOF, Pos: lexer.Position{Offset: s.base + s.eof, Line: 1, Column: 1}}, nil
	}
	t := s.toks[s.i]
	s.i++
	return lexer.Token{Type: t.typ, Value: string(s.text[t.start:t.end]), Pos: lexer.Position{Offset: s.base + t.start, Line: 1, Column: 1}}, nil
}
