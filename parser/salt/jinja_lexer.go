package salt

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// The Jinja lexer feeds the participle grammar in jinja_grammar.go. It is
// hand-written because Jinja's tokens depend on context: text outside
// tags, expression tokens inside `{{ }}` and `{% %}`, comments and raw
// blocks that are no tokens at all, and whitespace control (`{%-`, `-%}`)
// that trims the neighbouring text. lexTemplate finds the tags; this file
// turns them into participle tokens with file offsets.

// Token types of the Jinja lexer.
const (
	jtEOF lexer.TokenType = lexer.EOF
	// jtText is template text (whitespace control applied) or the
	// content of a raw block.
	jtText     lexer.TokenType = iota + 1
	jtVarOpen                  // {{ or {{-
	jtVarClose                 // }} or -}}
	jtTagOpen                  // {% or {%-
	jtTagClose                 // %} or -%}
	jtTag                      // the first word of a statement: if, for, endif, ...
	jtName
	jtString // quoted, as written
	jtNumber
	jtOp
)

func jinjaSymbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": jtEOF, "Text": jtText, "VarOpen": jtVarOpen, "VarClose": jtVarClose,
		"TagOpen": jtTagOpen, "TagClose": jtTagClose, "Tag": jtTag, "Name": jtName,
		"String": jtString, "Number": jtNumber, "Op": jtOp,
	}
}

// jinjaDefinition adapts the lexer to lexer.Definition (Lex is never
// used: chunks are fed with ParseFromLexer).
type jinjaDefinition struct{}

func (jinjaDefinition) Symbols() map[string]lexer.TokenType { return jinjaSymbols() }
func (jinjaDefinition) Lex(string, io.Reader) (lexer.Lexer, error) {
	return &jinjaStream{}, nil
}

// jinjaStream feeds participle from a token slice.
type jinjaStream struct {
	toks []lexer.Token
	i    int
	eof  int
}

func (s *jinjaStream) Next() (lexer.Token, error) {
	if s.i >= len(s.toks) {
		return lexer.Token{Type: lexer.EOF, Pos: lexer.Position{Offset: s.eof, Line: 1, Column: 1}}, nil
	}
	s.i++
	return s.toks[s.i-1], nil
}

func jtoken(typ lexer.TokenType, src []byte, a, b int) lexer.Token {
	return lexer.Token{Type: typ, Value: string(src[a:b]), Pos: lexer.Position{Offset: a, Line: 1, Column: 1}}
}

// blockEnds maps the statements that open a block to the tags that may
// close it (Salt's serializer extension accepts `endload` for every
// `load_*`).
var blockEnds = map[string][]string{
	"if": {"endif"}, "for": {"endfor"}, "macro": {"endmacro"}, "call": {"endcall"},
	"filter": {"endfilter"}, "with": {"endwith"}, "block": {"endblock"},
	"autoescape": {"endautoescape"}, "set": {"endset"},
	"load_yaml": {"endload", "endyaml"}, "load_json": {"endload", "endjson"}, "load_text": {"endload", "endtext"},
	"profile": {"endprofile"},
}

// jchunk is one top-level piece of a template: a text, an output, a
// statement or a whole block with its body.
type jchunk struct {
	toks       []lexer.Token
	start, end int // source range
}

// lexJinja tokenises a template and cuts it into top-level chunks. A block
// left open at the end of the template is reported once, at its opening
// tag, and closed there, so that its body is still read.
func lexJinja(src []byte) ([]jchunk, []Error) {
	tags, errs := lexTemplate(src)
	applyWhitespaceControl(src, tags)
	var chunks []jchunk
	var cur []lexer.Token
	curStart := 0
	var stack []open
	failed := false // jinja2 has stopped at an unknown tag
	flush := func(end int) {
		if len(cur) > 0 {
			chunks = append(chunks, jchunk{toks: cur, start: curStart, end: end})
			cur = nil
		}
	}
	for _, t := range tags {
		if len(stack) == 0 {
			flush(t.start)
			curStart = t.start
		}
		switch t.kind {
		case 't', 'r':
			if t.inEnd > t.in {
				cur = append(cur, jtoken(jtText, src, t.in, t.inEnd))
			}
		case 'e':
			cur = append(cur, jtoken(jtVarOpen, src, t.start, t.in))
			cur = lexInside(src, t.in, t.inEnd, cur, false)
			cur = append(cur, jtoken(jtVarClose, src, t.inEnd, t.end))
		case 's':
			word, rest := stmtWord(string(src[t.in:t.inEnd]))
			if word == "raw" && strings.TrimSpace(rest) == "" {
				continue // its content follows as a raw text token
			}
			cur = append(cur, jtoken(jtTagOpen, src, t.start, t.in))
			cur = lexInside(src, t.in, t.inEnd, cur, true)
			cur = append(cur, jtoken(jtTagClose, src, t.inEnd, t.end))
			var top *open
			if len(stack) > 0 {
				top = &stack[len(stack)-1]
			}
			switch {
			case top != nil && slices.Contains(top.looking(), word):
				switch word {
				case "else":
					top.els = true
				case "elif":
				default:
					stack = stack[:len(stack)-1]
				}
			case jinjaTags[word]:
				if _, ok := blockEnds[word]; ok && !(word == "set" && !isSetBlock(rest)) {
					stack = append(stack, open{word: word, tag: t})
				}
			case top != nil || !jinjaEndTags[word]:
				// a tag no extension Salt loads defines (`{% data['name']
				// %}`), or one that ends or splits another block than the
				// innermost: jinja2's parser fails there (fail_unknown_tag;
				// a stray end tag outside any block is the grammar's).
				// Salt's jinja_env options set no extensions.
				if !failed {
					errs = append(errs, unknownTagError(src, t, word, stack))
				}
				failed = true
			}
		}
		if len(stack) == 0 {
			flush(t.end)
			curStart = t.end
		}
	}
	for i := range errs {
		if e := errs[i]; e.unknownTag && len(stack) > 0 && e.Start >= tags[len(tags)-1].start {
			// an unknown tag left open at the end: what the blocks wait for
			t := jtok{in: e.Start, inEnd: e.End}
			errs[i].Msg = unknownTagError(src, t, "", stack).Msg
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		o := stack[i]
		ends := blockEnds[o.word]
		swallowed := failed // an unclosed tag after it: jinja2 fails there
		for _, e := range errs {
			swallowed = swallowed || e.Start > o.tag.start
		}
		if i == len(stack)-1 && !swallowed {
			// jinja2 fails once, on the innermost block, naming the tags
			// its parser was looking for there (an if's body may go on
			// with elif or else, a for's with else) and the block
			// (salt-order: "Unexpected end of template. Jinja was looking
			// for the following tags: 'elif' or 'else' or 'endif'. The
			// innermost block that needs to be closed is 'if'."), on the
			// line of its last token (salt-order's "; line N")
			errs = append(errs, Error{Span: eofSpan(src, tags, o.tag), Severity: 1,
				Msg: fmt.Sprintf("Jinja syntax error: Unexpected end of template. Jinja was looking for the following tags: '%s'. The innermost block that needs to be closed is '%s'.", strings.Join(o.looking(), "' or '"), o.word)})
		}
		// A zero-width closing tag at the end of the template.
		n := len(src)
		cur = append(cur,
			lexer.Token{Type: jtTagOpen, Pos: lexer.Position{Offset: n, Line: 1, Column: 1}},
			lexer.Token{Type: jtTag, Value: ends[0], Pos: lexer.Position{Offset: n, Line: 1, Column: 1}},
			lexer.Token{Type: jtTagClose, Pos: lexer.Position{Offset: n, Line: 1, Column: 1}})
	}
	flush(len(src))
	return chunks, errs
}

// open is a block the lexer is inside.
type open struct {
	word string
	tag  jtok
	els  bool // its else is past
}

// looking is what jinja2's parser accepts as the next tag of the block
// (parse_if's and parse_for's end tokens, then the block's end).
func (o open) looking() []string {
	switch {
	case o.word == "if" && !o.els:
		return []string{"elif", "else", "endif"}
	case o.word == "for" && !o.els:
		return []string{"endfor", "else"}
	}
	return blockEnds[o.word]
}

// jinjaTags are the statements Salt's Jinja environment parses: jinja2's
// own, the do and loopcontrols extensions and Salt's SerializerExtension
// (salt/utils/templates.py, salt/utils/jinja.py).
var jinjaTags = map[string]bool{
	"for": true, "if": true, "block": true, "extends": true, "print": true, "macro": true,
	"include": true, "from": true, "import": true, "set": true, "with": true, "autoescape": true,
	"call": true, "filter": true, "do": true, "break": true, "continue": true,
	"load_yaml": true, "load_json": true, "load_text": true, "import_yaml": true,
	"import_json": true, "import_text": true, "profile": true, "raw": true,
}

// jinjaEndTags end or split a block; outside one the grammar refuses them.
var jinjaEndTags = func() map[string]bool {
	m := map[string]bool{"elif": true, "else": true, "endraw": true}
	for _, ends := range blockEnds {
		for _, e := range ends {
			m[e] = true
		}
	}
	return m
}()

// unknownTagError is jinja2's fail_unknown_tag: the tag, then what the
// innermost block waits for, as a nesting mistake when an outer block
// waits for it.
func unknownTagError(src []byte, t jtok, word string, stack []open) Error {
	a := t.in
	for a < t.inEnd && isSpace(src[a]) {
		a++
	}
	// the tag's name is a name token (`data` of `data['name']`)
	b := a
	for b < t.inEnd && (src[b] == '_' || src[b] >= 'a' && src[b] <= 'z' || src[b] >= 'A' && src[b] <= 'Z' || src[b] >= '0' && src[b] <= '9' && b > a || src[b] >= utf8.RuneSelf) {
		b++
	}
	word = string(src[a:b])
	if word == "" {
		return Error{Span: Span{a, min(a+1, t.inEnd)}, Severity: 1, Msg: "Jinja syntax error: tag name expected", unknownTag: true}
	}
	msg := fmt.Sprintf("Encountered unknown tag '%s'.", word)
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		looking := "'" + strings.Join(top.looking(), "' or '") + "'"
		expected := false
		for _, o := range stack {
			expected = expected || slices.Contains(o.looking(), word)
		}
		if expected {
			msg += " You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for " + looking + "."
		} else {
			msg += " Jinja was looking for the following tags: " + looking + "."
		}
		msg += fmt.Sprintf(" The innermost block that needs to be closed is '%s'.", top.word)
	}
	return Error{Span: Span{a, b}, Severity: 1, Msg: "Jinja syntax error: " + msg, unknownTag: true}
}

// eofSpan is where jinja2 reports the end of a template: the line of its
// last token (the stream's eof token takes that line). One trailing
// newline is not part of the template (keep_trailing_newline is off in
// Salt), comments are no tokens, and text whitespace control emptied is
// none; after a tag or an output the last token is its closing `%}`.
// The span is that line's text; the block's own tag if it is blank.
func eofSpan(src []byte, tags []jtok, opened jtok) Span {
	end := len(src)
	switch {
	case strings.HasSuffix(string(src), "\r\n"):
		end -= 2
	case end > 0 && (src[end-1] == '\n' || src[end-1] == '\r'):
		end--
	}
	pos := -1
	for i := len(tags) - 1; i >= 0 && pos < 0; i-- {
		t := tags[i]
		switch t.kind {
		case 't', 'r':
			if min(t.inEnd, end) > t.in {
				pos = t.in
			}
		case 'e', 's':
			pos = t.inEnd
		}
	}
	if pos < 0 {
		return Span{opened.start, opened.end}
	}
	a := bytes.LastIndexByte(src[:pos], '\n') + 1
	b := len(src)
	if k := bytes.IndexByte(src[pos:], '\n'); k >= 0 {
		b = pos + k
	}
	for a < b && isSpace(src[a]) {
		a++
	}
	for b > a && isSpace(src[b-1]) {
		b--
	}
	if a == b {
		return Span{opened.start, opened.end}
	}
	return Span{a, b}
}

// stmtWord splits a statement's text into its first word and the rest.
func stmtWord(s string) (string, string) {
	s = strings.TrimSpace(s)
	// the tag's name token: what follows a name may touch it (`if(x)`,
	// `else:`, `data['name']`)
	i := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	if i >= 0 {
		return s[:i], strings.TrimSpace(s[i:])
	}
	return s, ""
}

// isSetAssign tells `set x = 1` (a statement) from `set x` (a block).
// isSetBlock: the rest of a `set` tag opens a block (`{% set x %}...
// {% endset %}`): targets, maybe filters, nothing else. jinja2's
// parse_set expects the tag's end right after them, so `{% set x
// salt['a']() %}` (a forgotten `=`) is one broken tag, "expected token
// 'end of statement block', got 'salt'" (snarfmonkey/salt-states
// base/ufw.sls), not a block left open to the end of the template.
func isSetBlock(rest string) bool {
	if isSetAssign(rest) {
		return false
	}
	return setBlockRe.MatchString(rest)
}

var setBlockRe = lazyre.New(`^\s*[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*,?\s*(\|.*)?$`)

func isSetAssign(rest string) bool {
	eq := strings.IndexByte(rest, '=')
	return eq >= 0 && !strings.HasPrefix(rest[eq:], "==")
}

// isJinjaSpace is what separates tokens in Jinja's lexer: its
// whitespace_re is `\s+` over a Python str, so a no-break space typed
// after a name (`{{ v\u00a0}}`, omaen/saltstack-states) separates it as a
// plain space does; taken into the name, it made a variable nobody binds.
func isJinjaSpace(r rune) bool {
	// (Python's str.isspace also holds the ASCII separators 0x1c-0x1f)
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

// spaceAt is the length of the whitespace rune at src[i:b], 0 if none.
func spaceAt(src []byte, i, b int) int {
	r, n := utf8.DecodeRune(src[i:b])
	if r == utf8.RuneError || !isJinjaSpace(r) {
		return 0
	}
	return n
}

// jinjaOps are the operators of Jinja's lexer, longest first.
var jinjaOps = []string{"**", "//", "==", "!=", "<=", ">="}

// lexInside appends the expression tokens of src[a:b]; in a statement
// the first word is a jtTag.
func lexInside(src []byte, a, b int, out []lexer.Token, stmt bool) []lexer.Token {
	first := stmt
	i := a
	for i < b {
		c := src[i]
		switch {
		case c < utf8.RuneSelf && isJinjaSpace(rune(c)):
			i++
			continue
		case c >= utf8.RuneSelf && spaceAt(src, i, b) > 0:
			i += spaceAt(src, i, b)
			continue
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf:
			j := i
			for j < b && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9' || src[j] >= utf8.RuneSelf && spaceAt(src, j, b) == 0) {
				j++
			}
			typ := jtName
			if first {
				typ = jtTag
			}
			out = append(out, jtoken(typ, src, i, j))
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < b && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == '_') {
				if src[j] == '.' && (j+1 >= b || src[j+1] < '0' || src[j+1] > '9') {
					break
				}
				j++
			}
			out = append(out, jtoken(jtNumber, src, i, j))
			i = j
		case c == '\'' || c == '"':
			j := i + 1
			for j < b && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, b)
			out = append(out, jtoken(jtString, src, i, j))
			i = j
		default:
			n := 1
			for _, op := range jinjaOps {
				if strings.HasPrefix(string(src[i:min(i+2, b)]), op) {
					n = 2
					break
				}
			}
			out = append(out, jtoken(jtOp, src, i, i+n))
			i += n
		}
		first = false
	}
	return out
}

// unquoteJinja decodes a string token as Jinja does for the escapes
// people write in SLS files: \n and \t, any other escaped character
// stands for itself.
func unquoteJinja(s string) string {
	if len(s) < 2 {
		return ""
	}
	q := s[0]
	s = s[1:]
	if s[len(s)-1] == q {
		s = s[:len(s)-1]
	}
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var sb strings.Builder
	for j := 0; j < len(s); j++ {
		if s[j] == '\\' && j+1 < len(s) {
			j++
			switch s[j] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			default:
				sb.WriteByte(s[j])
			}
			continue
		}
		sb.WriteByte(s[j])
	}
	return sb.String()
}
