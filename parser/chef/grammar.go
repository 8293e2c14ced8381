package chef

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar of one Policyfile statement. Tokens come from the
// hand-written scanner (tokenDef); every token's Pos.Offset is its start
// byte and Pos.Line its end byte within the statement (participle counts
// columns in runes, so columns are never used).

type gStmt struct {
	Assign   *gAssign `parser:"(  @@"`
	Call     *gCall   `parser:" | @@ )"`
	Modifier *gExpr   `parser:"( (\"if\" | \"unless\") @@ )?"`
}

type gAssign struct {
	Tokens []lexer.Token
	Level  string   `parser:"@Ident"` // default, override, or a .tap block parameter
	Keys   []*gExpr `parser:"( LIndex @@ \"]\" )+"`
	Value  *gExpr   `parser:"\"=\" @@"`
	// `default[k] = a, b` is Ruby's array [a, b]
	More []*gExpr `parser:"( \",\" @@ )*"`
}

type gCall struct {
	Tokens []lexer.Token
	Name   string  `parser:"@Ident"`
	Paren  *gArgs  `parser:"( LCall @@? \")\""`
	Args   *gArgs  `parser:"| @@ )?"`
	Block  *string `parser:"@Block?"`
}

type gArgs struct {
	Items []*gArg `parser:"@@ ( \",\" @@ )* \",\"?"`
}

type gArg struct {
	Pair  *gPair `parser:"  @@"`
	Splat *gExpr `parser:"| (\"*\" | \"**\" | \"&\") @@"`
	Value *gExpr `parser:"| @@"`
}

type gPair struct {
	Tokens []lexer.Token
	Label  *string `parser:"(  @Label"`
	Key    *gKey   `parser:" | @@ \"=>\" )"`
	Value  *gExpr  `parser:"@@"`
}

// gKey is a hash key before `=>`: one token, so that a value that is not a
// key fails after one token (no re-parse of nested values: no exponential
// backtracking on deeply nested arrays and calls).
type gKey struct {
	Tokens []lexer.Token
	Str    *string `parser:"  @String"`
	Sym    *string `parser:"| @Symbol"`
	Num    *string `parser:"| @Number"`
	Ref    *string `parser:"| @(Ident | Const)"`
}

type gExpr struct {
	Tokens []lexer.Token
	Unary  []string `parser:"@(\"!\" | \"-\" | \"not\" | \"defined?\")*"`
	Head   *gPrim   `parser:"@@"`
	Tail   []*gTail `parser:"@@*"`
}

type gTail struct {
	Op    string `parser:"@(Op | \"|\" | \"and\" | \"or\")"`
	Right *gPrim `parser:"@@"`
}

type gPrim struct {
	Tokens []lexer.Token
	Str    *string  `parser:"(  @String"`
	Sym    *string  `parser:" | @Symbol"`
	Num    *string  `parser:" | @Number"`
	Words  *string  `parser:" | @Words"`
	Regex  *string  `parser:" | @Regex"`
	Array  *gArray  `parser:" | @@"`
	Hash   *gHash   `parser:" | @@"`
	Paren  *gExpr   `parser:" | (\"(\" | LCall) @@ \")\""`
	Lambda *string  `parser:" | \"->\" @Block"`
	Ref    *string  `parser:" | @(Ident | Const | IVar) )"`
	Post   []*gPost `parser:"@@*"`
}

type gArray struct {
	Items []*gArg `parser:"\"[\" ( @@ ( \",\" @@ )* \",\"? )? \"]\""`
}

type gHash struct {
	Pairs []*gPair `parser:"\"{\" ( @@ ( \",\" @@ )* \",\"? )? \"}\""`
}

type gPost struct {
	Member *string  `parser:"(  (\".\" | \"&.\" | \"::\") @(Ident | Const)"`
	Call   *gArgs   `parser:" | LCall @@? \")\""`
	Index  []*gExpr `parser:" | LIndex @@ ( \",\" @@ )* \"]\" )"`
}

// tokenDef adapts the scanner to participle.
type tokenDef struct{}

func (tokenDef) Symbols() map[string]lexer.TokenType {
	m := map[string]lexer.TokenType{"EOF": lexer.EOF}
	for k := KNewline; k <= KError; k++ {
		m[k.String()] = lexer.TokenType(-(int(k) + 2))
	}
	return m
}

func (tokenDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return lexTokens(b, fold(b, Scan(b))), nil
}

// tokLexer replays already scanned tokens.
type tokLexer struct {
	toks []lexer.Token
	i    int
	end  int
}

func (l *tokLexer) Next() (lexer.Token, error) {
	if l.i >= len(l.toks) {
		return lexer.EOFToken(lexer.Position{Offset: l.end, Line: l.end}), nil
	}
	t := l.toks[l.i]
	l.i++
	return t, nil
}

func lexTokens(src []byte, toks []Tok) *tokLexer {
	out := make([]lexer.Token, 0, len(toks))
	for _, t := range toks {
		v := t.Text(src)
		if t.Kind == KLabel {
			v = strings.TrimSuffix(v, ":")
		}
		out = append(out, lexer.Token{Type: lexer.TokenType(-(int(t.Kind) + 2)), Value: v, Pos: lexer.Position{Offset: t.Start, Line: t.End}})
	}
	return &tokLexer{toks: out, end: len(src)}
}

// Built on first use: a program that never reads this language does not
// pay for building the grammar at start.
var stmtParser = sync.OnceValue(func() *participle.Parser[gStmt] {
	return participle.MustBuild[gStmt](
		participle.Lexer(tokenDef{}),
		participle.UseLookahead(64))
})

// parseStatement runs the grammar over the folded tokens of one statement
// (offsets relative to src, which is the whole file).
func parseStatement(src []byte, toks []Tok) (*gStmt, error) {
	lx := lexTokens(src, toks)
	if len(toks) > 0 {
		lx.end = toks[len(toks)-1].End
	}
	pl, err := lexer.Upgrade(lx)
	if err != nil {
		return nil, err
	}
	return stmtParser().ParseFromLexer(pl)
}

// ---- conversion to the public syntax tree ----

// ValueKind says what a Ruby literal is.
type ValueKind uint8

const (
	VString ValueKind = iota
	VSymbol
	VNumber
	VBool
	VNil
	VArray
	VHash
	// VUnknown is Ruby the analysis cannot evaluate: a variable, a method
	// call (File.join, __dir__, ENV[...]), an operator expression.
	VUnknown
)

func (k ValueKind) String() string {
	return [...]string{"string", "symbol", "number", "boolean", "nil", "array", "hash", "unknown"}[k]
}

// Value is a Ruby value as written.
type Value struct {
	Kind ValueKind
	// Text is the decoded string, the symbol's name (no colon), the number,
	// "true"/"false", or the source text of an unknown expression.
	Text string
	// Pattern marks a string with #{...} interpolation; Text keeps the
	// interpolations verbatim.
	Pattern bool
	Items   []*Value
	Pairs   []*Pair
	// Start, End are byte offsets in the file.
	Start, End int
}

// Pair is one `key => value` or `key: value` entry.
type Pair struct {
	Key        *Value
	Value      *Value
	Start, End int
}

// Call is a DSL method call: `cookbook "x", "~> 1.0", path: "..."`.
type Call struct {
	Name               string
	NameStart, NameEnd int
	Args               []*Value
	Opts               []*Pair // keyword arguments / trailing hash
	// Block is the byte range of a do...end or {...} block, if any.
	BlockStart, BlockEnd int
	Start, End           int
}

// Opt returns the keyword argument named key (`key:` or `:key =>` or
// `"key" =>`), or nil.
func (c *Call) Opt(key string) *Pair {
	for _, p := range c.Opts {
		if p.Key != nil && (p.Key.Kind == VSymbol || p.Key.Kind == VString) && p.Key.Text == key {
			return p
		}
	}
	return nil
}

// Assign is `default["a"]["b"] = value` or `override[...] = value`.
type Assign struct {
	Level                string // "default" or "override"
	LevelStart, LevelEnd int
	Keys                 []*Value
	Value                *Value
	Start, End           int
}

func span(ts []lexer.Token) (int, int) {
	if len(ts) == 0 {
		return 0, 0
	}
	return ts[0].Pos.Offset, ts[len(ts)-1].Pos.Line
}

type conv struct {
	src   []byte // the statement's text
	base  int    // its offset in the file
	depth int
}

func (c *conv) span(ts []lexer.Token) (int, int) {
	s, e := span(ts)
	return s + c.base, e + c.base
}

const maxDepth = 200

func (c *conv) unknown(ts []lexer.Token) *Value {
	s, e := span(ts)
	return &Value{Kind: VUnknown, Text: string(c.src[s:e]), Start: s + c.base, End: e + c.base}
}

func (c *conv) expr(x *gExpr) *Value {
	if x == nil {
		return nil
	}
	if len(x.Unary) > 0 || len(x.Tail) > 0 {
		// `-1` stays a number; anything else is computed by Ruby.
		if len(x.Tail) == 0 && len(x.Unary) == 1 && x.Unary[0] == "-" && x.Head.Num != nil && len(x.Head.Post) == 0 {
			v := c.prim(x.Head)
			s, _ := c.span(x.Tokens)
			v.Text = "-" + v.Text
			v.Start = s
			return v
		}
		return c.unknown(x.Tokens)
	}
	return c.prim(x.Head)
}

func (c *conv) prim(p *gPrim) *Value {
	s, e := c.span(p.Tokens)
	if len(p.Post) > 0 {
		return c.unknown(p.Tokens)
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxDepth {
		return c.unknown(p.Tokens)
	}
	v := &Value{Start: s, End: e}
	switch {
	case p.Str != nil && strings.HasPrefix(*p.Str, "<<"):
		return c.unknown(p.Tokens) // heredoc: its text is on the following lines
	case p.Str != nil:
		v.Kind = VString
		v.Text, v.Pattern = decodeString(*p.Str)
	case p.Sym != nil:
		v.Kind = VSymbol
		t := strings.TrimPrefix(*p.Sym, ":")
		if strings.HasPrefix(t, "%s") {
			t = t[3 : len(t)-1]
		} else if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') {
			t, v.Pattern = decodeString(t)
		}
		v.Text = t
	case p.Num != nil:
		v.Kind = VNumber
		v.Text = strings.ReplaceAll(*p.Num, "_", "")
	case p.Words != nil:
		v.Kind = VArray
		w := *p.Words
		inner := ""
		if len(w) >= 4 {
			inner = w[3 : len(w)-1]
		}
		// offsets of each word
		base := s + 3
		i := 0
		for i < len(inner) {
			for i < len(inner) && isSpace(inner[i]) {
				i++
			}
			j := i
			for j < len(inner) && !isSpace(inner[j]) {
				j++
			}
			if j > i {
				kind := VString
				if w[1] == 'i' || w[1] == 'I' {
					kind = VSymbol
				}
				v.Items = append(v.Items, &Value{Kind: kind, Text: inner[i:j], Pattern: strings.Contains(inner[i:j], "#{"), Start: base + i, End: base + j})
			}
			i = j
		}
	case p.Regex != nil, p.Lambda != nil:
		return c.unknown(p.Tokens)
	case p.Array != nil:
		v.Kind = VArray
		for _, a := range p.Array.Items {
			if a.Pair != nil {
				// [a: 1] is an array holding a hash
				h := &Value{Kind: VHash}
				h.Pairs = append(h.Pairs, c.pair(a.Pair))
				h.Start, h.End = h.Pairs[0].Start, h.Pairs[0].End
				v.Items = append(v.Items, h)
				continue
			}
			if a.Splat != nil {
				v.Items = append(v.Items, c.unknown(a.Splat.Tokens))
				continue
			}
			v.Items = append(v.Items, c.expr(a.Value))
		}
	case p.Hash != nil:
		v.Kind = VHash
		for _, pr := range p.Hash.Pairs {
			v.Pairs = append(v.Pairs, c.pair(pr))
		}
	case p.Paren != nil:
		inner := c.expr(p.Paren)
		return inner
	case p.Ref != nil:
		switch *p.Ref {
		case "true", "false":
			v.Kind, v.Text = VBool, *p.Ref
		case "nil":
			v.Kind = VNil
		default:
			return c.unknown(p.Tokens)
		}
	default:
		return c.unknown(p.Tokens)
	}
	return v
}

func (c *conv) pair(p *gPair) *Pair {
	s, e := c.span(p.Tokens)
	out := &Pair{Start: s, End: e}
	if p.Label != nil {
		ks := p.Tokens[0].Pos.Offset + c.base
		text := *p.Label
		if len(text) >= 2 && (text[0] == '\'' || text[0] == '"') {
			// a string label `'key':`: the symbol is what the quotes hold
			text, ks = text[1:len(text)-1], ks+1
		}
		out.Key = &Value{Kind: VSymbol, Text: text, Start: ks, End: ks + len(text)}
	} else {
		k := p.Key
		out.Key = c.prim(&gPrim{Tokens: k.Tokens, Str: k.Str, Sym: k.Sym, Num: k.Num, Ref: k.Ref})
	}
	out.Value = c.expr(p.Value)
	return out
}

func (c *conv) args(a *gArgs, call *Call) {
	if a == nil {
		return
	}
	for _, it := range a.Items {
		switch {
		case it.Pair != nil:
			call.Opts = append(call.Opts, c.pair(it.Pair))
		case it.Splat != nil:
			call.Args = append(call.Args, c.unknown(it.Splat.Tokens))
		default:
			v := c.expr(it.Value)
			// a trailing literal hash is keyword options too
			if v.Kind == VHash && it == a.Items[len(a.Items)-1] {
				call.Opts = append(call.Opts, v.Pairs...)
				continue
			}
			call.Args = append(call.Args, v)
		}
	}
}

func (c *conv) call(g *gCall) *Call {
	s, e := c.span(g.Tokens)
	out := &Call{Name: g.Name, NameStart: s, NameEnd: s + len(g.Name), Start: s, End: e}
	if g.Paren != nil {
		c.args(g.Paren, out)
	} else {
		c.args(g.Args, out)
	}
	if g.Block != nil {
		// the block is the last token of the call
		last := g.Tokens[len(g.Tokens)-1]
		out.BlockStart, out.BlockEnd = last.Pos.Offset+c.base, last.Pos.Line+c.base
	}
	return out
}

func (c *conv) assign(g *gAssign) *Assign {
	s, e := c.span(g.Tokens)
	out := &Assign{Level: g.Level, LevelStart: s, LevelEnd: s + len(g.Level), Start: s, End: e}
	for _, k := range g.Keys {
		out.Keys = append(out.Keys, c.expr(k))
	}
	out.Value = c.expr(g.Value)
	if len(g.More) > 0 {
		arr := &Value{Kind: VArray, Items: []*Value{out.Value}, Start: out.Value.Start}
		for _, m := range g.More {
			arr.Items = append(arr.Items, c.expr(m))
		}
		arr.End = arr.Items[len(arr.Items)-1].End
		out.Value = arr
	}
	return out
}

// decodeString turns a Ruby string literal (quotes included) into its
// value. Double-quoted strings with #{...} keep the interpolation text and
// report pattern=true.
func decodeString(lit string) (string, bool) {
	if lit == "" {
		return "", false
	}
	q := lit[0]
	body := lit
	interp := true
	switch {
	case q == '\'':
		interp = false
		body = trimDelims(lit, 1)
	case q == '"' || q == '`':
		body = trimDelims(lit, 1)
	case q == '%':
		if len(lit) >= 3 && (lit[1] == 'q') {
			interp = false
			body = trimDelims(lit, 3)
		} else if len(lit) >= 3 && isIdentChar(lit[1]) {
			body = trimDelims(lit, 3)
		} else {
			body = trimDelims(lit, 2)
		}
	case q == '<':
		return "", false // heredoc marker: the body is elsewhere
	}
	var b strings.Builder
	pattern := false
	for i := 0; i < len(body); i++ {
		ch := body[i]
		if ch == '\\' && i+1 < len(body) {
			n := body[i+1]
			i++
			if !interp {
				if n == '\\' || n == '\'' {
					b.WriteByte(n)
				} else {
					b.WriteByte('\\')
					b.WriteByte(n)
				}
				continue
			}
			switch n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 's':
				b.WriteByte(' ')
			case '0':
				b.WriteByte(0)
			case 'e':
				b.WriteByte(27)
			case 'u':
				// \uXXXX or \u{X...}
				hex := ""
				if i+1 < len(body) && body[i+1] == '{' {
					if j := strings.IndexByte(body[i+1:], '}'); j > 0 {
						hex = body[i+2 : i+1+j]
						i += j + 1
					}
				} else if i+4 < len(body) {
					hex = body[i+1 : i+5]
					i += 4
				}
				if r, err := strconv.ParseUint(hex, 16, 32); err == nil && hex != "" {
					b.WriteRune(rune(r))
				} else {
					b.WriteString(`\u` + hex)
				}
			case 'x':
				j := i + 1
				for j < len(body) && j < i+3 && strings.IndexByte("0123456789abcdefABCDEF", body[j]) >= 0 {
					j++
				}
				if v, err := strconv.ParseUint(body[i+1:j], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i = j - 1
				} else {
					b.WriteByte('x')
				}
			default:
				b.WriteByte(n)
			}
			continue
		}
		if interp && ch == '#' && i+1 < len(body) && body[i+1] == '{' {
			pattern = true
		}
		b.WriteByte(ch)
	}
	return b.String(), pattern
}

func trimDelims(s string, open int) string {
	if len(s) < open+1 {
		return ""
	}
	return s[open : len(s)-1]
}

// String renders a value back in Ruby-ish notation (for messages).
func (v *Value) String() string {
	if v == nil {
		return "nil"
	}
	switch v.Kind {
	case VString:
		return fmt.Sprintf("%q", v.Text)
	case VSymbol:
		return ":" + v.Text
	case VNumber, VBool:
		return v.Text
	case VNil:
		return "nil"
	case VArray:
		parts := make([]string, len(v.Items))
		for i, it := range v.Items {
			parts[i] = it.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case VHash:
		parts := make([]string, len(v.Pairs))
		for i, p := range v.Pairs {
			parts[i] = p.Key.String() + "=>" + p.Value.String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.Text
}
