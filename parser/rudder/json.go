package rudder

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// JSONKind is the type of a JSON value.
type JSONKind uint8

const (
	JNull JSONKind = iota
	JBool
	JNumber
	JString
	JArray
	JObject
)

// JSON is one value of a JSON document with its byte range. Strings keep
// the range of their content (without quotes) in Inner so a go-to-definition
// lands on the id itself.
type JSON struct {
	Kind       JSONKind
	Start, End int // the whole value, quotes and brackets included
	Str        string
	Num        float64
	Bool       bool
	Items      []*JSON
	Members    []*Member
	// Closed is false for arrays and objects cut short by an error: their
	// members so far are kept so a truncated export still shows what it has.
	Closed bool
}

// Member is one "key": value pair of an object.
type Member struct {
	Key   string
	KeyAt Span
	Value *JSON
}

// Span is a byte range in one file.
type Span struct{ Start, End int }

// Get returns the value of the first member named key, or nil.
func (j *JSON) Get(key string) *JSON {
	if j == nil || j.Kind != JObject {
		return nil
	}
	for _, m := range j.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Inner is the range of a string's content, without the quotes.
func (j *JSON) Inner() Span {
	if j.Kind == JString && j.End-j.Start >= 2 {
		return Span{j.Start + 1, j.End - 1}
	}
	return Span{j.Start, j.End}
}

// SyntaxError is a JSON error at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// MaxDepth bounds nesting so hostile input cannot exhaust the stack.
const MaxDepth = 200

// ParseJSON parses a whole document. On a syntax error it returns the
// partial tree built so far (complete members and items are kept, open
// containers have Closed == false) together with the error.
func ParseJSON(text []byte) (*JSON, error) {
	p := &jsonParser{s: text}
	if len(text) >= 3 && text[0] == 0xef && text[1] == 0xbb && text[2] == 0xbf {
		p.i = 3 // a UTF-8 byte order mark, as some Windows tools write
	}
	p.ws()
	if p.i >= len(p.s) {
		return nil, &SyntaxError{p.i, "unexpected end of JSON input: the file is empty"}
	}
	v := p.value(0)
	if p.err != nil {
		return v, p.err
	}
	p.ws()
	if p.i < len(p.s) {
		return v, &SyntaxError{p.i, fmt.Sprintf("invalid character %s after top-level value", quoteChar(p.s[p.i]))}
	}
	return v, nil
}

type jsonParser struct {
	s   []byte
	i   int
	err error
}

func (p *jsonParser) fail(off int, format string, args ...any) {
	if p.err == nil {
		p.err = &SyntaxError{off, fmt.Sprintf(format, args...)}
	}
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func quoteChar(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return "'" + string(c) + "'"
}

func (p *jsonParser) eof(what string) {
	p.fail(p.i, "unexpected end of JSON input in %s (truncated export?)", what)
}

// value parses one value; p.i is at its first byte.
func (p *jsonParser) value(depth int) *JSON {
	if depth > MaxDepth {
		p.fail(p.i, "JSON nested more than %d levels deep", MaxDepth)
		return nil
	}
	if p.i >= len(p.s) {
		p.eof("a value")
		return nil
	}
	start := p.i
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil
		}
		return &JSON{Kind: JString, Start: start, End: p.i, Str: s, Closed: true}
	case c == 't':
		return p.lit("true", &JSON{Kind: JBool, Bool: true})
	case c == 'f':
		return p.lit("false", &JSON{Kind: JBool})
	case c == 'n':
		return p.lit("null", &JSON{Kind: JNull})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		p.fail(p.i, "invalid character %s looking for beginning of value", quoteChar(c))
		return nil
	}
}

func (p *jsonParser) lit(word string, v *JSON) *JSON {
	start := p.i
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.s) {
			p.eof("literal " + word)
			return nil
		}
		if p.s[p.i] != word[k] {
			p.fail(p.i, "invalid character %s in literal %s", quoteChar(p.s[p.i]), word)
			return nil
		}
		p.i++
	}
	v.Start, v.End, v.Closed = start, p.i, true
	return v
}

func (p *jsonParser) number() *JSON {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if digits() == 0 {
		p.fail(p.i, "invalid number: digit expected")
		return nil
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.fail(p.i, "invalid number: digit expected after '.'")
			return nil
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.fail(p.i, "invalid number: digit expected in exponent")
			return nil
		}
	}
	f, _ := strconv.ParseFloat(string(p.s[start:p.i]), 64)
	return &JSON{Kind: JNumber, Start: start, End: p.i, Num: f, Str: string(p.s[start:p.i]), Closed: true}
}

// str reads a string at p.i (which is '"') and decodes its escapes.
func (p *jsonParser) str() (string, bool) {
	start := p.i
	p.i++
	var buf []byte
	plain := p.i
	for {
		if p.i >= len(p.s) {
			p.fail(start, "unterminated string (truncated export?)")
			return "", false
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			var out string
			if buf == nil {
				out = string(p.s[plain:p.i])
			} else {
				out = string(append(buf, p.s[plain:p.i]...))
			}
			p.i++
			return out, true
		case c == '\n':
			p.fail(start, "unterminated string: the line ends inside it (truncated export?)")
			return "", false
		case c < 0x20:
			p.fail(p.i, "invalid control character %s in string", quoteChar(c))
			return "", false
		case c == '\\':
			buf = append(buf, p.s[plain:p.i]...)
			p.i++
			if p.i >= len(p.s) {
				p.fail(start, "unterminated string (truncated export?)")
				return "", false
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						if lo, ok := p.hex4(); ok {
							r2 = utf16.DecodeRune(r, lo)
						} else {
							return "", false
						}
						if r2 == utf8.RuneError {
							p.i = save
						}
					}
					r = r2
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.fail(p.i-1, "invalid escape character %s in string", quoteChar(e))
				return "", false
			}
			plain = p.i
		default:
			p.i++
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		p.fail(p.i, "unterminated \\u escape (truncated export?)")
		return 0, false
	}
	var r rune
	for k := 0; k < 4; k++ {
		c := p.s[p.i+k]
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			p.fail(p.i+k, "invalid character %s in \\u escape", quoteChar(c))
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

func (p *jsonParser) object(depth int) *JSON {
	v := &JSON{Kind: JObject, Start: p.i}
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		v.End, v.Closed = p.i, true
		return v
	}
	for {
		p.ws()
		if p.i >= len(p.s) {
			p.eof("object")
			v.End = p.i
			return v
		}
		if p.s[p.i] != '"' {
			p.fail(p.i, "invalid character %s looking for beginning of object key string", quoteChar(p.s[p.i]))
			v.End = p.i
			return v
		}
		kstart := p.i
		key, ok := p.str()
		if !ok {
			v.End = p.i
			return v
		}
		kat := Span{kstart + 1, p.i - 1}
		p.ws()
		if p.i >= len(p.s) {
			p.eof("object")
			v.End = p.i
			return v
		}
		if p.s[p.i] != ':' {
			p.fail(p.i, "invalid character %s after object key", quoteChar(p.s[p.i]))
			v.End = p.i
			return v
		}
		p.i++
		p.ws()
		val := p.value(depth + 1)
		if val != nil {
			v.Members = append(v.Members, &Member{Key: key, KeyAt: kat, Value: val})
		}
		if p.err != nil {
			v.End = p.i
			return v
		}
		p.ws()
		if p.i >= len(p.s) {
			p.eof("object")
			v.End = p.i
			return v
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			v.End, v.Closed = p.i, true
			return v
		default:
			p.fail(p.i, "invalid character %s after object key:value pair", quoteChar(p.s[p.i]))
			v.End = p.i
			return v
		}
	}
}

func (p *jsonParser) array(depth int) *JSON {
	v := &JSON{Kind: JArray, Start: p.i}
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		v.End, v.Closed = p.i, true
		return v
	}
	for {
		p.ws()
		val := p.value(depth + 1)
		if val != nil {
			v.Items = append(v.Items, val)
		}
		if p.err != nil {
			v.End = p.i
			return v
		}
		p.ws()
		if p.i >= len(p.s) {
			p.eof("array")
			v.End = p.i
			return v
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			v.End, v.Closed = p.i, true
			return v
		default:
			p.fail(p.i, "invalid character %s after array element", quoteChar(p.s[p.i]))
			v.End = p.i
			return v
		}
	}
}
