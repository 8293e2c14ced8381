// Package chef reads Chef Policyfiles (a subset of Ruby: the Policyfile DSL)
// and Policyfile lock files (JSON), keeping byte offsets for every value.
//
// Nothing here executes Ruby. A hand-written scanner tokenizes the whole
// file and splits it into top-level statements (balanced brackets,
// do/end, if/end...); each statement that starts with a DSL word is parsed
// by a participle grammar, anything else is reported as skipped Ruby.
package chef

import (
	"unicode/utf8"
)

// Kind is a token kind of the Ruby scanner.
type Kind uint8

const (
	KEOF     Kind = iota
	KNewline      // end of a line or ';'
	KComment
	KIdent  // lower-case identifiers and keywords (foo, foo?, foo!)
	KConst  // capitalised identifiers
	KIVar   // @x @@x $x
	KSymbol // :foo :"foo"
	KLabel  // foo: (a hash key)
	KString // '...' "..." %q() heredoc marker `...`
	KWords  // %w[] %i[] %W[] %I[]
	KNumber
	KRegex
	KPunct  // ( ) [ ] { } , . &. :: => = |
	KOp     // any other operator
	KLIndex // '[' written right after a value: an index, not an array argument
	KLCall  // '(' written right after an identifier: call parentheses
	KBlock  // a folded do...end or {|...| ...} block (only after fold)
	KError  // a byte the scanner does not understand, or an unterminated literal
)

var kindNames = [...]string{"EOF", "Newline", "Comment", "Ident", "Const", "IVar", "Symbol", "Label", "String", "Words", "Number", "Regex", "Punct", "Op", "LIndex", "LCall", "Block", "Error"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// Tok is one token: kind and byte range in the scanned text.
type Tok struct {
	Kind       Kind
	Start, End int
	// Body is the byte range of a heredoc's text (for KString heredocs).
	BodyStart, BodyEnd int
	// Err explains a KError token or an unterminated literal.
	Err string
}

// Text returns the token's source text.
func (t Tok) Text(src []byte) string { return string(src[t.Start:t.End]) }

type scanner struct {
	src     []byte
	i       int
	toks    []Tok
	pending []heredoc
}

type heredoc struct {
	id     string
	indent bool // <<~ or <<- : terminator may be indented
	tok    int  // index of the marker token
}

// Scan tokenizes Ruby source. It never fails: bytes it cannot place become
// KError tokens and unterminated literals run to the end of the input with
// Err set. Comments are kept (KComment) so callers can skip them.
func Scan(src []byte) []Tok {
	s := &scanner{src: src, toks: make([]Tok, 0, len(src)/4+4)}
	s.run()
	return s.toks
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var keywordsNotValue = map[string]bool{
	"if": true, "unless": true, "while": true, "until": true, "and": true, "or": true, "not": true,
	"then": true, "else": true, "elsif": true, "when": true, "in": true, "return": true, "do": true,
	"case": true, "begin": true, "rescue": true, "ensure": true, "yield": true, "puts": true,
}

// valueEnd reports whether the last token ends a value, so that a
// following '/' is division, '[' an index, '%' modulo, '<<' a shift.
func (s *scanner) valueEnd() bool {
	if len(s.toks) == 0 {
		return false
	}
	t := s.toks[len(s.toks)-1]
	switch t.Kind {
	case KIdent:
		return !keywordsNotValue[string(s.src[t.Start:t.End])]
	case KConst, KIVar, KSymbol, KString, KWords, KNumber, KRegex:
		return true
	case KPunct:
		c := s.src[t.Start]
		return c == ')' || c == ']' || c == '}'
	}
	return false
}

func (s *scanner) lastKind() Kind {
	if len(s.toks) == 0 {
		return KNewline
	}
	return s.toks[len(s.toks)-1].Kind
}

func (s *scanner) emit(k Kind, start int) {
	s.toks = append(s.toks, Tok{Kind: k, Start: start, End: s.i})
}

func (s *scanner) emitErr(k Kind, start int, msg string) {
	s.toks = append(s.toks, Tok{Kind: k, Start: start, End: s.i, Err: msg})
}

func (s *scanner) atLineStart() bool {
	return s.i == 0 || s.src[s.i-1] == '\n'
}

func (s *scanner) hasPrefix(p string) bool {
	return len(s.src)-s.i >= len(p) && string(s.src[s.i:s.i+len(p)]) == p
}

func (s *scanner) run() {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		start := s.i
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.i++
		case c == '\\' && s.i+1 < len(src) && (src[s.i+1] == '\n' || (src[s.i+1] == '\r' && s.i+2 < len(src) && src[s.i+2] == '\n')):
			// line continuation
			s.i += 2
			if src[s.i-1] == '\r' {
				s.i++
			}
		case c == '\n':
			s.i++
			if len(s.pending) > 0 {
				s.readHeredocBodies()
			}
			s.toks = append(s.toks, Tok{Kind: KNewline, Start: start, End: s.i})
		case c == ';':
			s.i++
			s.emit(KNewline, start)
		case c == '#':
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
			s.emit(KComment, start)
		case c == '=' && s.atLineStart() && s.hasPrefix("=begin"):
			s.blockComment(start)
		case c == '_' && s.atLineStart() && s.hasPrefix("__END__") && (s.i+7 == len(src) || src[s.i+7] == '\n' || src[s.i+7] == '\r'):
			// The rest of the file is data.
			s.i = len(src)
			s.emit(KComment, start)
		case isIdentStart(c):
			s.ident(start)
		case isDigit(c):
			s.number(start)
		case c == '"' || c == '\'' || c == '`':
			s.i++
			s.quoted(c, start, c == '"' || c == '`')
		case c == ':':
			s.colon(start)
		case c == '@' || c == '$':
			s.i++
			for s.i < len(src) && (src[s.i] == '@') {
				s.i++
			}
			for s.i < len(src) && isIdentChar(src[s.i]) {
				s.i++
			}
			if s.i == start+1 && c == '$' && s.i < len(src) {
				s.i++ // $! $0 ...
			}
			s.emit(KIVar, start)
		case (c == '<' || c == '=' || c == '>') && s.atLineStart() && s.conflictMarker(c):
			s.emitErr(KError, start, "unresolved merge conflict marker")
		case c == '%' && (!s.valueEnd() || s.commandArg()) && s.percentLiteral(start):
		case c == '/' && (!s.valueEnd() || s.commandArg()):
			s.i++
			s.delimited('/', '/', start, KRegex, true)
			for s.i < len(src) && (src[s.i] >= 'a' && src[s.i] <= 'z') {
				s.i++ // flags
			}
			s.toks[len(s.toks)-1].End = s.i
		case c == '<' && s.hasPrefix("<<") && s.heredocStart(start):
		case c == '[':
			s.i++
			if start > 0 && s.valueEnd() && !isSpace(src[start-1]) {
				s.emit(KLIndex, start)
			} else {
				s.emit(KPunct, start)
			}
		case c == '(':
			s.i++
			if start > 0 && s.lastKind() == KIdent && s.toks[len(s.toks)-1].End == start {
				s.emit(KLCall, start)
			} else {
				s.emit(KPunct, start)
			}
		case c == ')' || c == ']' || c == '{' || c == '}' || c == ',':
			s.i++
			s.emit(KPunct, start)
		default:
			s.operator(start)
		}
	}
	if len(s.pending) > 0 {
		for _, h := range s.pending {
			s.toks[h.tok].Err = "unterminated heredoc " + h.id
		}
		s.pending = nil
	}
}

// commandArg reports `foo %w(a b)` / `foo /re/`: an identifier, a space,
// and no space after the operator: Ruby reads a literal argument there.
func (s *scanner) commandArg() bool {
	if s.lastKind() != KIdent || s.i == 0 || !isSpace(s.src[s.i-1]) {
		return false
	}
	return s.i+1 < len(s.src) && !isSpace(s.src[s.i+1]) && s.src[s.i+1] != '='
}

func (s *scanner) conflictMarker(c byte) bool {
	for k := 0; k < 7; k++ {
		if s.i+k >= len(s.src) || s.src[s.i+k] != c {
			return false
		}
	}
	if s.i+7 < len(s.src) && s.src[s.i+7] != ' ' && s.src[s.i+7] != '\n' && s.src[s.i+7] != '\r' {
		return false
	}
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *scanner) blockComment(start int) {
	src := s.src
	for s.i < len(src) {
		// advance to next line
		for s.i < len(src) && src[s.i] != '\n' {
			s.i++
		}
		if s.i < len(src) {
			s.i++
		}
		if s.hasPrefix("=end") {
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
			s.emit(KComment, start)
			return
		}
	}
	s.emitErr(KComment, start, "unterminated =begin comment")
}

func (s *scanner) ident(start int) {
	src := s.src
	for s.i < len(src) && isIdentChar(src[s.i]) {
		if src[s.i] >= 0x80 {
			_, n := utf8.DecodeRune(src[s.i:])
			s.i += n
			continue
		}
		s.i++
	}
	if s.i < len(src) && (src[s.i] == '?' || src[s.i] == '!') && !(s.i+1 < len(src) && src[s.i+1] == '=') {
		s.i++
	}
	// label `key:` (but not `a ? b :c`, nor `Foo::Bar`)
	if s.i < len(src) && src[s.i] == ':' && !(s.i+1 < len(src) && src[s.i+1] == ':') {
		prev := s.lastKind()
		if !(prev == KOp && s.src[s.toks[len(s.toks)-1].Start] == '?') {
			s.i++
			s.emit(KLabel, start)
			return
		}
	}
	c := src[start]
	if c >= 'A' && c <= 'Z' {
		s.emit(KConst, start)
		return
	}
	s.emit(KIdent, start)
}

func (s *scanner) number(start int) {
	src := s.src
	if src[s.i] == '0' && s.i+1 < len(src) && (src[s.i+1] == 'x' || src[s.i+1] == 'b' || src[s.i+1] == 'o') {
		s.i += 2
	}
	for s.i < len(src) {
		c := src[s.i]
		if isDigit(c) || c == '_' || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') {
			if (c == 'e' || c == 'E') && s.i+1 < len(src) && (src[s.i+1] == '-' || src[s.i+1] == '+') {
				s.i++
			}
			s.i++
			continue
		}
		if c == '.' && s.i+1 < len(src) && isDigit(src[s.i+1]) {
			s.i++
			continue
		}
		break
	}
	s.emit(KNumber, start)
}

// quoted reads a string body after its opening quote up to close. In
// interpolating strings #{...} may nest braces and other strings.
func (s *scanner) quoted(close byte, start int, interp bool) {
	prevQ := len(s.toks) > 0 && s.toks[len(s.toks)-1].Kind == KOp && s.src[s.toks[len(s.toks)-1].Start] == '?'
	s.delimited(close, close, start, KString, interp)
	// `'key': value` (Ruby 2.2): a string label, a symbol key of a hash or
	// keyword argument; the colon touches the quote and is followed by a
	// blank (`c ? 'a' : 'b'` has a blank before its colon)
	src, n := s.src, len(s.toks)
	if n > 0 && s.toks[n-1].Kind == KString && s.toks[n-1].Start == start && !prevQ &&
		s.i+1 < len(src) && src[s.i] == ':' && (src[s.i+1] == ' ' || src[s.i+1] == '\t' || src[s.i+1] == '\n' || src[s.i+1] == '\r') {
		s.i++
		s.toks[n-1].Kind, s.toks[n-1].End = KLabel, s.i
	}
}

func (s *scanner) delimited(open, close byte, start int, k Kind, interp bool) {
	src := s.src
	depth := 1
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\\':
			s.i += 2
			continue
		case interp && c == '#' && s.i+1 < len(src) && src[s.i+1] == '{':
			s.i += 2
			s.skipInterpolation()
			continue
		case c == close && open != close:
			depth--
			s.i++
			if depth == 0 {
				s.emit(k, start)
				return
			}
			continue
		case c == close:
			s.i++
			s.emit(k, start)
			return
		case c == open && open != close:
			depth++
		}
		s.i++
	}
	if s.i > len(src) {
		s.i = len(src)
	}
	s.emitErr(k, start, "unterminated literal")
	s.toks[len(s.toks)-1].Kind = KError
}

// skipInterpolation skips the Ruby code of #{...} after the opening brace.
func (s *scanner) skipInterpolation() {
	src := s.src
	depth := 1
	for s.i < len(src) && depth > 0 {
		c := src[s.i]
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case '\\':
			s.i++
		case '"', '\'':
			// a nested string inside the interpolation
			s.i++
			for s.i < len(src) && src[s.i] != c {
				if src[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
		}
		s.i++
	}
	if s.i > len(src) {
		s.i = len(src)
	}
}

func closerOf(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return c
}

func (s *scanner) percentLiteral(start int) bool {
	src := s.src
	j := s.i + 1
	if j >= len(src) {
		return false
	}
	kind := byte('Q')
	if isIdentChar(src[j]) {
		kind = src[j]
		j++
		if j >= len(src) {
			return false
		}
	}
	d := src[j]
	if !(d == '(' || d == '[' || d == '{' || d == '<' || d == '|' || d == '!' || d == '/') {
		return false
	}
	s.i = j + 1
	switch kind {
	case 'w', 'W', 'i', 'I':
		s.delimited(d, closerOf(d), start, KWords, kind == 'W' || kind == 'I')
	case 'q':
		s.delimited(d, closerOf(d), start, KString, false)
	case 'Q':
		s.delimited(d, closerOf(d), start, KString, true)
	case 'r':
		s.delimited(d, closerOf(d), start, KRegex, true)
	case 's':
		s.delimited(d, closerOf(d), start, KSymbol, false)
	default:
		s.delimited(d, closerOf(d), start, KString, true)
	}
	return true
}

func (s *scanner) heredocStart(start int) bool {
	src := s.src
	j := s.i + 2
	indent := false
	if j < len(src) && (src[j] == '~' || src[j] == '-') {
		indent = true
		j++
	}
	if j >= len(src) {
		return false
	}
	var id string
	switch {
	case src[j] == '"' || src[j] == '\'' || src[j] == '`':
		q := src[j]
		k := j + 1
		for k < len(src) && src[k] != q && src[k] != '\n' {
			k++
		}
		if k >= len(src) || src[k] != q {
			return false
		}
		id = string(src[j+1 : k])
		j = k + 1
	case isIdentStart(src[j]):
		if !indent && (s.valueEnd() || !(src[j] >= 'A' && src[j] <= 'Z')) {
			return false // `a << b` is a shift
		}
		k := j
		for k < len(src) && isIdentChar(src[k]) {
			k++
		}
		id = string(src[j:k])
		j = k
	default:
		return false
	}
	s.i = j
	s.emit(KString, start)
	s.pending = append(s.pending, heredoc{id: id, indent: indent, tok: len(s.toks) - 1})
	return true
}

// readHeredocBodies consumes the bodies of the heredocs opened on the line
// just ended; s.i is at the start of the next line.
func (s *scanner) readHeredocBodies() {
	src := s.src
	for _, h := range s.pending {
		bodyStart := s.i
		found := false
		for s.i < len(src) {
			ls := s.i
			le := ls
			for le < len(src) && src[le] != '\n' {
				le++
			}
			line := src[ls:le]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if h.indent {
				for len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
					line = line[1:]
				}
			}
			s.i = le
			if s.i < len(src) {
				s.i++
			}
			if string(line) == h.id {
				s.toks[h.tok].BodyStart, s.toks[h.tok].BodyEnd = bodyStart, ls
				found = true
				break
			}
		}
		if !found {
			s.toks[h.tok].BodyStart, s.toks[h.tok].BodyEnd = bodyStart, len(src)
			s.toks[h.tok].Err = "unterminated heredoc " + h.id
		}
	}
	s.pending = s.pending[:0]
}

func (s *scanner) colon(start int) {
	src := s.src
	if s.hasPrefix("::") {
		s.i += 2
		s.emit(KPunct, start)
		return
	}
	j := s.i + 1
	if j < len(src) && (src[j] == '"' || src[j] == '\'') {
		s.i = j + 1
		s.quoted(src[j], start, src[j] == '"')
		s.toks[len(s.toks)-1].Kind = KSymbol
		if s.toks[len(s.toks)-1].Err != "" {
			s.toks[len(s.toks)-1].Kind = KError
		}
		return
	}
	if j < len(src) && isIdentStart(src[j]) {
		s.i = j
		for s.i < len(src) && isIdentChar(src[s.i]) {
			s.i++
		}
		if s.i < len(src) && (src[s.i] == '?' || src[s.i] == '!' || src[s.i] == '=') && !(s.i+1 < len(src) && (src[s.i+1] == '=' || src[s.i+1] == '>')) {
			s.i++
		}
		s.emit(KSymbol, start)
		return
	}
	s.i++
	s.emit(KOp, start)
}

var punctOps = []string{"=>", "&.", "->"}

var ops = []string{"**=", "<=>", "===", "...", "||=", "&&=", "<<=", ">>=",
	"**", "==", "!=", "=~", "!~", "<=", ">=", "&&", "||", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "..",
	"+", "-", "*", "/", "%", "<", ">", "!", "?", "&", "^", "~"}

func (s *scanner) operator(start int) {
	for _, p := range punctOps {
		if s.hasPrefix(p) {
			s.i += len(p)
			s.emit(KPunct, start)
			return
		}
	}
	for _, p := range ops {
		if s.hasPrefix(p) {
			s.i += len(p)
			s.emit(KOp, start)
			return
		}
	}
	c := s.src[s.i]
	if c == '=' || c == '.' || c == '|' {
		s.i++
		s.emit(KPunct, start)
		return
	}
	_, n := utf8.DecodeRune(s.src[s.i:])
	if n < 1 {
		n = 1
	}
	s.i += n
	s.emitErr(KError, start, "unexpected character")
}
