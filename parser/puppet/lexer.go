// Package puppet parses the Puppet 7 language into a syntax tree whose
// every node carries exact byte offsets into the source.
//
// The lexer is hand-written (heredocs, string interpolation and the
// regex-or-division question need context a table lexer does not have),
// and it never fails: bytes it cannot make sense of become TIllegal tokens
// that the parser reports as syntax errors where they are.
package puppet

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// view returns the bytes as a string without copying. Sources are never
// modified after they are handed to the lexer (source.File texts are
// immutable), so tokens may share their memory.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Kind classifies a token.
type Kind uint8

const (
	TEOF      Kind = iota
	TIllegal       // a byte or construct the lexer could not read; Val says why
	TName          // lower-case word, possibly qualified: foo, foo::bar, ::foo (keywords too)
	TTypeName      // capitalised word: File, Foo::Bar
	TVar           // $x, $::x, $a::b, $0 (Val has no '$')
	TString        // single-quoted string or a double-quoted one without interpolation (Val unescaped)
	TIString       // double-quoted string or heredoc with interpolation (Parts)
	TNumber
	TRegex // Val is the pattern without slashes
	TPunct // operators and punctuation; Val is the text
)

func (k Kind) String() string {
	switch k {
	case TEOF:
		return "end of input"
	case TIllegal:
		return "illegal"
	case TName:
		return "name"
	case TTypeName:
		return "type name"
	case TVar:
		return "variable"
	case TString, TIString:
		return "string"
	case TNumber:
		return "number"
	case TRegex:
		return "regex"
	case TPunct:
		return "punctuation"
	}
	return "?"
}

// Token is one lexeme; Pos/End are byte offsets into the source.
type Token struct {
	Kind Kind
	// NL is true when a newline separates this token from the previous
	// one. (Next to Kind: a token is 64 bytes, not 72.)
	NL       bool
	Val      string
	Pos, End int
	// Parts of an interpolated string (TIString).
	Parts []StrPart
}

// StrPart is a piece of an interpolated string: literal text, or an
// expression ${...} / $var whose source lies at [Pos, End).
type StrPart struct {
	Lit      string
	Expr     bool
	Pos, End int  // for Expr: the expression's text (without ${ })
	Simple   bool // $var form: the text is a variable name
}

// puncts, longest first for each leading byte.
var puncts = []string{
	"<<|", "|>>", "<|", "|>", "<<", ">>", "<-", "<~", "<=", "->", "~>", "=>", "==", "=~", "!=", "!~", ">=", "+>", "+=", "-=", "@@",
	"{", "}", "[", "]", "(", ")", ",", ";", ":", ".", "?", "|", "=", "!", "<", ">", "+", "-", "*", "/", "%", "@",
}

// punctsByByte lists puncts by their first byte, in the same order.
var punctsByByte = func() (t [256][]string) {
	for _, op := range puncts {
		t[op[0]] = append(t[op[0]], op)
	}
	return t
}()

var regexAfterWord = map[string]bool{"node": true, "and": true, "or": true, "in": true, "if": true, "elsif": true, "unless": true, "case": true}

// Lex splits src into tokens. It never fails; the last token is TEOF.
func Lex(src []byte) []Token {
	return lexRange(src, 0, len(src))
}

func lexRange(src []byte, start, end int) []Token {
	lx := &lexer{src: src, pos: start, end: end, skipFrom: -1}
	toks := make([]Token, 0, (end-start)/5+4)
	for {
		n := len(toks)
		toks = append(toks, Token{})
		lx.nextInto(toks[:n], &toks[n])
		if toks[n].Kind == TEOF {
			return toks
		}
	}
}

type lexer struct {
	src      []byte
	pos, end int
	// Heredoc bodies start after the line holding `@(TAG)`: when the
	// scanner reaches the newline at skipFrom, it jumps to skipTo.
	skipFrom, skipTo int
	// skipped, when set, records what the scanner steps over that is not
	// blank: comments and heredoc bodies (LexSkipped).
	skipped *[]Skipped
}

// Skipped is text the lexer steps over that is not blank: a comment, or
// the body of a heredoc (its lines, then the line of its end tag).
type Skipped struct {
	Loc
	Comment bool
	// Tag is the end tag's line, for a heredoc (its end is the body's).
	Tag Loc
}

// LexSkipped is Lex that also returns the comments and heredoc bodies it
// stepped over, in the order it met them (for highlighting: the parser
// never needs them). The tokens are appended to buf[:0] (a buffer the
// caller reuses between calls, or nil).
func LexSkipped(src []byte, buf []Token) ([]Token, []Skipped) {
	var sk []Skipped
	lx := &lexer{src: src, pos: 0, end: len(src), skipFrom: -1, skipped: &sk}
	toks := buf[:0]
	if cap(toks) == 0 {
		toks = make([]Token, 0, len(src)/5+4)
	}
	for {
		n := len(toks)
		toks = append(toks, Token{})
		lx.nextInto(toks[:n], &toks[n])
		if toks[n].Kind == TEOF {
			return toks, sk
		}
	}
}

func isIdentStart(b byte) bool { return b == '_' || (b >= 'a' && b <= 'z') }
func isIdent(b byte) bool {
	return b == '_' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}
func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// unicodeBlank is the length of the Unicode space separator (category Zs)
// b starts with, 0 if none: the characters besides space and tab that
// Puppet's lexer skips (PATTERN_WS, [[:blank:]\r] over UTF-8 text).
func unicodeBlank(b []byte) int {
	r, n := utf8.DecodeRune(b)
	switch {
	case r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
		return n
	}
	return 0
}

// skipSpace skips blanks and comments; it reports whether a newline was crossed.
func (lx *lexer) skipSpace() bool {
	nl := false
	for lx.pos < lx.end {
		c := lx.src[lx.pos]
		switch {
		case c == '\n':
			nl = true
			if lx.pos == lx.skipFrom {
				lx.pos = lx.skipTo
				lx.skipFrom = -1
				continue
			}
			lx.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.pos++
		case c >= 0xC2:
			// Puppet's blank is Ruby's [[:blank:]]: every Unicode space
			// separator, pasted from a web page or a word processor
			// (jasy125/control-repo has an en space after an attribute).
			n := unicodeBlank(lx.src[lx.pos:lx.end])
			if n == 0 {
				return nl
			}
			lx.pos += n
		case c == '#':
			start := lx.pos
			for lx.pos < lx.end && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
			if lx.skipped != nil {
				*lx.skipped = append(*lx.skipped, Skipped{Loc: Loc{start, lx.pos}, Comment: true})
			}
		case c == '/' && lx.pos+1 < lx.end && lx.src[lx.pos+1] == '*':
			i := strings.Index(string(lx.src[lx.pos+2:lx.end]), "*/")
			if i < 0 {
				return nl // unterminated comment: let next() report it
			}
			seg := lx.src[lx.pos : lx.pos+2+i+2]
			for j, b := range seg {
				if b == '\n' {
					nl = true
					if lx.pos+j == lx.skipFrom {
						// A heredoc body cannot start inside a comment in
						// practice; drop the skip rather than misplace it.
						lx.skipFrom = -1
					}
				}
			}
			if lx.skipped != nil {
				*lx.skipped = append(*lx.skipped, Skipped{Loc: Loc{lx.pos, lx.pos + 2 + i + 2}, Comment: true})
			}
			lx.pos += 2 + i + 2
		default:
			return nl
		}
	}
	return nl
}

// nextInto is next writing the token in place, in the slice it goes to:
// a token returned by value is copied at every level on its way there,
// which took a third of the lexing time.
func (lx *lexer) nextInto(prev []Token, t *Token) {
	nl := lx.skipSpace()
	if lx.pos >= lx.end {
		*t = Token{Kind: TEOF, Pos: lx.end, End: lx.end, NL: nl}
		return
	}
	*t = lx.scan(prev)
	t.NL = nl
}

func (lx *lexer) next(prev []Token) Token {
	nl := lx.skipSpace()
	if lx.pos >= lx.end {
		return Token{Kind: TEOF, Pos: lx.end, End: lx.end, NL: nl}
	}
	t := lx.scan(prev)
	t.NL = nl
	return t
}

func (lx *lexer) scan(prev []Token) Token {
	s := lx.src
	p := lx.pos
	c := s[p]
	switch {
	case c == '/' && p+1 < lx.end && s[p+1] == '*':
		lx.pos = lx.end
		return Token{Kind: TIllegal, Val: "unterminated comment", Pos: p, End: lx.end}
	case isIdentStart(c) || (c == ':' && p+2 < lx.end && s[p+1] == ':' && (isIdentStart(s[p+2]) || isUpper(s[p+2]))):
		return lx.word(p)
	case c == ':' && p+1 < lx.end && s[p+1] == ':':
		// '::' not followed by a name or a type name: Puppet's lexer
		// stops after the '::' (lexer2.rb: "Illegal fully qualified name",
		// edf-hpc's $::complex::server::::_config_options)
		lx.pos = p + 2
		end := lx.pos
		if end < lx.end {
			_, size := utf8.DecodeRune(s[end:lx.end])
			end += max(size, 1)
		}
		t := Token{Kind: TIllegal, Val: "Illegal fully qualified name", Pos: lx.pos, End: end}
		lx.pos = end
		return t
	case isUpper(c):
		return lx.word(p)
	case c == '$':
		return lx.variable(p)
	case isDigit(c):
		return lx.number(p)
	case c == '\'':
		return lx.single(p)
	case c == '"':
		return lx.double(p)
	case c == '@' && p+1 < lx.end && s[p+1] == '(':
		if t, ok := lx.heredoc(p); ok {
			return t
		}
	case c == '/' && regexAllowed(prev):
		if t, ok := lx.regex(p); ok {
			return t
		}
	}
	for _, op := range punctsByByte[c] {
		if p+len(op) <= lx.end && string(s[p:p+len(op)]) == op {
			lx.pos = p + len(op)
			return Token{Kind: TPunct, Val: op, Pos: p, End: lx.pos}
		}
	}
	// Not a Puppet character. Swallow one UTF-8 sequence (or one invalid
	// byte) so the error lands on exactly that character.
	_, size := utf8.DecodeRune(s[p:lx.end])
	if size < 1 {
		size = 1
	}
	lx.pos = p + size
	return Token{Kind: TIllegal, Val: "unexpected character", Pos: p, End: lx.pos}
}

func regexAllowed(prev []Token) bool {
	if len(prev) == 0 {
		return true
	}
	t := prev[len(prev)-1]
	switch t.Kind {
	case TPunct:
		return t.Val != ")" && t.Val != "]"
	case TName:
		return regexAfterWord[t.Val]
	}
	return false
}

func (lx *lexer) word(p int) Token {
	s := lx.src
	i := p
	upper := false
	for {
		if i+1 < lx.end && s[i] == ':' && s[i+1] == ':' {
			i += 2
		}
		if i < lx.end && isUpper(s[i]) {
			upper = true
		}
		st := i
		for i < lx.end && isIdent(s[i]) {
			i++
		}
		if i == st {
			break
		}
		// Bare words may contain dashes in some positions (node names are
		// strings, but `foo-bar` as an attribute value is a Puppet 3
		// habit): Puppet 7 lexes a name with dashes as a WORD, segments
		// after it too (`class grid-site::repos`, which its validator
		// then refuses); accept it as a name.
		for i < lx.end && s[i] == '-' && i+1 < lx.end && (isIdent(s[i+1])) && !upper {
			i++
			for i < lx.end && isIdent(s[i]) {
				i++
			}
		}
		if !(i+2 < lx.end && s[i] == ':' && s[i+1] == ':' && (isIdentStart(s[i+2]) || isUpper(s[i+2]))) {
			break
		}
	}
	lx.pos = i
	k := TName
	if upper || (p < lx.end && isUpper(s[p])) {
		k = TTypeName
	}
	// ::Foo is a type; ::foo a name.
	if s[p] == ':' && p+2 < lx.end && isUpper(s[p+2]) {
		k = TTypeName
	}
	return Token{Kind: k, Val: view(s[p:i]), Pos: p, End: i}
}

func (lx *lexer) variable(p int) Token {
	s := lx.src
	i := p + 1
	st := i
	for {
		if i+1 < lx.end && s[i] == ':' && s[i+1] == ':' {
			i += 2
		}
		ws := i
		for i < lx.end && isIdent(s[i]) {
			i++
		}
		if i == ws {
			break
		}
		if !(i+2 < lx.end && s[i] == ':' && s[i+1] == ':' && isIdent(s[i+2])) {
			break
		}
	}
	lx.pos = i
	if i == st {
		return Token{Kind: TIllegal, Val: "'$' without a variable name", Pos: p, End: i}
	}
	return Token{Kind: TVar, Val: view(s[st:i]), Pos: p, End: i}
}

func (lx *lexer) number(p int) Token {
	s := lx.src
	i := p
	if s[i] == '0' && i+1 < lx.end && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
		for i < lx.end && (isDigit(s[i]) || (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f')) {
			i++
		}
	} else {
		for i < lx.end && isDigit(s[i]) {
			i++
		}
		if i+1 < lx.end && s[i] == '.' && isDigit(s[i+1]) {
			i++
			for i < lx.end && isDigit(s[i]) {
				i++
			}
		}
		if i < lx.end && (s[i] == 'e' || s[i] == 'E') {
			j := i + 1
			if j < lx.end && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < lx.end && isDigit(s[j]) {
				i = j
				for i < lx.end && isDigit(s[i]) {
					i++
				}
			}
		}
	}
	// 1abc is not a number in Puppet; keep the letters in the token so the
	// error covers them.
	bad := false
	for i < lx.end && isIdent(s[i]) {
		i++
		bad = true
	}
	lx.pos = i
	if bad {
		return Token{Kind: TIllegal, Val: "illegal number", Pos: p, End: i}
	}
	return Token{Kind: TNumber, Val: view(s[p:i]), Pos: p, End: i}
}

func (lx *lexer) single(p int) Token {
	s := lx.src
	// Fast path: no escapes.
	for i := p + 1; i < lx.end; i++ {
		if s[i] == '\\' {
			break
		}
		if s[i] == '\'' {
			lx.pos = i + 1
			return Token{Kind: TString, Val: view(s[p+1 : i]), Pos: p, End: lx.pos}
		}
	}
	var b strings.Builder
	i := p + 1
	for i < lx.end {
		c := s[i]
		if c == '\'' {
			lx.pos = i + 1
			return Token{Kind: TString, Val: b.String(), Pos: p, End: lx.pos}
		}
		if c == '\\' && i+1 < lx.end && (s[i+1] == '\'' || s[i+1] == '\\') {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	lx.pos = lx.end
	return Token{Kind: TIllegal, Val: "unterminated quoted string", Pos: p, End: lx.end}
}

func (lx *lexer) double(p int) Token {
	// Fast path: no escapes, no interpolation.
	for i := p + 1; i < lx.end; i++ {
		c := lx.src[i]
		if c == '\\' || c == '$' {
			break
		}
		if c == '"' {
			lx.pos = i + 1
			return Token{Kind: TString, Val: view(lx.src[p+1 : i]), Pos: p, End: lx.pos}
		}
	}
	end, ok := findClose(lx.src, p+1, lx.end, '"')
	if !ok {
		lx.pos = lx.end
		return Token{Kind: TIllegal, Val: "unterminated quoted string", Pos: p, End: lx.end}
	}
	lx.pos = end + 1
	return interpolated(lx.src, p, end+1, p+1, end, true)
}

// findClose finds the closing quote of a double-quoted string starting at
// i, stepping over escapes and over ${...} (which may contain strings).
func findClose(s []byte, i, end int, q byte) (int, bool) {
	for i < end {
		c := s[i]
		switch {
		case c == '\\':
			i += 2
		case c == q:
			return i, true
		case c == '$' && i+1 < end && s[i+1] == '{':
			j, ok := skipBraces(s, i+1, end)
			if !ok {
				return 0, false
			}
			i = j
		default:
			i++
		}
	}
	return 0, false
}

// skipBraces: s[i] == '{'; returns the index after the matching '}'.
func skipBraces(s []byte, i, end int) (int, bool) {
	depth := 0
	for i < end {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"', '\'':
			q := s[i]
			j := i + 1
			for j < end && s[j] != q {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= end {
				return 0, false
			}
			i = j
		}
		i++
	}
	return 0, false
}

// interpolated builds a TString or TIString token for the text between
// [bs, be) of a token spanning [p, e). escapes says whether backslash
// escapes apply (double quotes, or heredocs with escapes enabled).
func interpolated(s []byte, p, e, bs, be int, escapes bool) Token {
	var parts []StrPart
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, StrPart{Lit: b.String()})
			b.Reset()
		}
	}
	i := bs
	for i < be {
		c := s[i]
		if c == '\\' && escapes && i+1 < be {
			n := s[i+1]
			switch n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 's':
				b.WriteByte(' ')
			case '$', '"', '\\', '\'':
				b.WriteByte(n)
			case '\n':
			case 'u':
				j := i + 2
				if j < be && s[j] == '{' {
					k := j + 1
					for k < be && s[k] != '}' {
						k++
					}
					var r rune
					for _, h := range s[j+1 : min(k, be)] {
						r = r*16 + rune(hexVal(h))
					}
					b.WriteRune(r)
					i = min(k+1, be)
					continue
				}
				var r rune
				k := j
				for ; k < j+4 && k < be; k++ {
					r = r*16 + rune(hexVal(s[k]))
				}
				b.WriteRune(r)
				i = k
				continue
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			i += 2
			continue
		}
		if c == '$' && i+1 < be && s[i+1] == '{' {
			j, ok := skipBraces(s, i+1, be)
			if !ok {
				j = be
			}
			flush()
			parts = append(parts, StrPart{Expr: true, Pos: i + 2, End: max(i+2, j-1)})
			i = j
			continue
		}
		if c == '$' && i+1 < be && (isIdent(s[i+1]) || (s[i+1] == ':' && i+2 < be && s[i+2] == ':')) {
			j := i + 1
			for {
				if j+1 < be && s[j] == ':' && s[j+1] == ':' {
					j += 2
				}
				st := j
				for j < be && isIdent(s[j]) {
					j++
				}
				if j == st || !(j+2 < be && s[j] == ':' && s[j+1] == ':' && isIdent(s[j+2])) {
					break
				}
			}
			flush()
			parts = append(parts, StrPart{Expr: true, Simple: true, Pos: i + 1, End: j})
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	hasExpr := false
	for _, pt := range parts {
		if pt.Expr {
			hasExpr = true
		}
	}
	if !hasExpr {
		v := b.String()
		if len(parts) == 1 {
			v = parts[0].Lit + v
		}
		return Token{Kind: TString, Val: v, Pos: p, End: e}
	}
	flush()
	return Token{Kind: TIString, Parts: parts, Pos: p, End: e}
}

func hexVal(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b|0x20 >= 'a' && b|0x20 <= 'f':
		return int(b|0x20-'a') + 10
	}
	return 0
}

func (lx *lexer) regex(p int) (Token, bool) {
	s := lx.src
	i := p + 1
	for i < lx.end {
		if s[i] == '\\' {
			i += 2
			continue
		}
		if s[i] == '\n' && !strings.Contains(string(s[p:i]), "(?x") {
			break // only extended-mode regexes span lines in practice
		}
		if s[i] == '/' {
			lx.pos = i + 1
			return Token{Kind: TRegex, Val: string(s[p+1 : i]), Pos: p, End: i + 1}, true
		}
		i++
	}
	return Token{}, false
}

// heredoc lexes @("TAG"/flags) or @(TAG:syntax/flags). The token covers
// the @(...) spec only; the body (lines after the current one up to the
// end tag) becomes the token's value and is skipped by the scanner.
func (lx *lexer) heredoc(p int) (Token, bool) {
	s := lx.src
	i := p + 2
	close := -1
	for j := i; j < lx.end && s[j] != '\n'; j++ {
		if s[j] == ')' {
			close = j
			break
		}
	}
	if close < 0 {
		return Token{}, false
	}
	spec := strings.TrimSpace(string(s[i:close]))
	interp := false
	tag := spec
	flags := ""
	if k := strings.IndexByte(tag, '/'); k >= 0 {
		flags = tag[k+1:]
		tag = tag[:k]
	}
	tag = strings.TrimSpace(tag)
	if strings.HasPrefix(tag, "\"") {
		interp = true
		if k := strings.IndexByte(tag[1:], '"'); k >= 0 {
			tag = tag[1 : k+1]
		} else {
			return Token{}, false
		}
	} else if k := strings.IndexByte(tag, ':'); k >= 0 {
		tag = strings.TrimSpace(tag[:k])
	}
	if tag == "" {
		return Token{}, false
	}
	// The body starts after the end of this line, or after the body of a
	// heredoc that already started on this line.
	bodyStart := -1
	if lx.skipFrom >= 0 {
		bodyStart = lx.skipTo
	} else {
		nl := close
		for nl < lx.end && s[nl] != '\n' {
			nl++
		}
		if nl >= lx.end {
			lx.pos = lx.end
			return Token{Kind: TIllegal, Val: "heredoc without a body", Pos: p, End: close + 1}, true
		}
		lx.skipFrom = nl
		bodyStart = nl + 1
	}
	// Find the end line: optional spaces, optional '|', optional spaces,
	// optional '-', optional spaces, TAG, then end of line.
	ln := bodyStart
	bodyEnd, after := -1, -1
	margin := 0
	for ln < lx.end {
		le := ln
		for le < lx.end && s[le] != '\n' {
			le++
		}
		line := string(s[ln:le])
		t := strings.TrimLeft(line, " \t")
		ind := len(line) - len(t)
		pipe := false
		if strings.HasPrefix(t, "|") {
			pipe = true
			t = strings.TrimLeft(t[1:], " \t")
		}
		if strings.HasPrefix(t, "-") {
			t = strings.TrimLeft(t[1:], " \t")
		}
		if strings.TrimRight(t, " \t\r") == tag {
			bodyEnd = ln
			after = le
			if pipe {
				margin = ind
			}
			break
		}
		ln = le + 1
	}
	if lx.skipped != nil {
		sk := Skipped{Loc: Loc{bodyStart, lx.end}}
		if bodyEnd >= 0 {
			sk.End, sk.Tag = after, Loc{bodyEnd, after}
		}
		*lx.skipped = append(*lx.skipped, sk)
	}
	if bodyEnd < 0 {
		lx.skipTo = lx.end
		lx.pos = close + 1
		return Token{Kind: TIllegal, Val: "heredoc end tag '" + tag + "' not found", Pos: p, End: close + 1}, true
	}
	lx.skipTo = after
	lx.pos = close + 1
	escapes := interp
	if strings.Contains(flags, "t") || strings.Contains(flags, "n") || strings.Contains(flags, "$") || strings.Contains(flags, "\\") {
		escapes = true
	}
	if !interp {
		body := stripMargin(string(s[bodyStart:bodyEnd]), margin)
		return Token{Kind: TString, Val: body, Pos: p, End: close + 1}, true
	}
	t := interpolated(s, p, close+1, bodyStart, bodyEnd, escapes)
	if t.Kind == TString {
		t.Val = stripMargin(t.Val, margin)
	}
	return t, true
}

func stripMargin(body string, margin int) string {
	if margin == 0 {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		n := 0
		for n < margin && n < len(l) && (l[n] == ' ' || l[n] == '\t') {
			n++
		}
		lines[i] = l[n:]
	}
	return strings.Join(lines, "")
}

// interpolationTokens lexes the expression inside "${...}" at src[pos:end]:
// a leading bare word is a variable there ("${x}" is $x), unless it is
// called ("${f(1)}"). The last token is TEOF.
func interpolationTokens(src []byte, pos, end int) []Token {
	toks := lexRange(src, pos, end)
	if toks[0].Kind == TName && !(len(toks) > 1 && toks[1].Kind == TPunct && toks[1].Val == "(") {
		toks[0].Kind = TVar
	}
	return toks
}

// stringParts builds an interpolated string from its token; interp parses
// the expression of a "${...}" part (src[pos:end]).
func stringParts(src []byte, t *Token, interp func(pos, end int) Node) *Str {
	s := &Str{Loc: Loc{t.Pos, t.End}}
	for _, pt := range t.Parts {
		switch {
		case !pt.Expr:
			s.Parts = append(s.Parts, Part{Lit: pt.Lit})
		case pt.Simple:
			s.Parts = append(s.Parts, Part{Expr: &Var{Loc: Loc{pt.Pos - 1, pt.End}, Name: string(src[pt.Pos:pt.End])}})
		default:
			s.Parts = append(s.Parts, Part{Expr: interp(pt.Pos, pt.End)})
		}
	}
	return s
}
