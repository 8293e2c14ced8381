package puppet

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2"
	plex "github.com/alecthomas/participle/v2/lexer"
)

// tokenSource feeds participle the lexer's tokens. It gives each the type
// the grammar needs (see grammar.go): Post for a `[` touching the
// value before it, StmtCall/StmtWord for a statement function, the
// source text as the value (so a string is never mistaken for a word).
type tokenSource struct {
	src  []byte
	toks []Token
	i    int
	eof  int
	// taskEnd: the index of the `}` closing the plan being read (Puppet's
	// tasks mode, where `apply(...) { }` is a block), 0 outside plans.
	taskEnd int
}

func (s *tokenSource) Next() (plex.Token, error) {
	if s.i >= len(s.toks) || s.toks[s.i].Kind == TEOF {
		return plex.Token{Type: plex.EOF, Pos: plex.Position{Offset: s.eof, Line: 1, Column: 1}}, nil
	}
	t := &s.toks[s.i]
	typ := gPunct
	val := t.Val
	switch t.Kind {
	case TName:
		typ = s.word(s.i)
	case TTypeName:
		typ = gTypeName
	case TVar:
		typ, val = gVar, view(s.src[t.Pos:t.End])
		if s.nextIs(s.i, "{") {
			typ = gVarBrace
		}
	case TString, TIString, TRegex:
		typ, val = gString, view(s.src[t.Pos:t.End])
	case TNumber:
		typ = gNumber
	case TIllegal:
		typ, val = gIllegal, view(s.src[t.Pos:t.End])
	case TPunct:
		switch {
		case t.Val == "[" && s.i > 0 && t.Pos == s.toks[s.i-1].End && endsExpr(&s.toks[s.i-1]):
			typ = gPost
		case t.Val == "." || t.Val == "?":
			typ = gPost
		default:
			typ = punctTypes[t.Val]
		}
	}
	s.i++
	return plex.Token{Type: typ, Value: val, Pos: plex.Position{Offset: t.Pos, Line: 1, Column: 1}}, nil
}

// reserved are the words that are never a plain name (Puppet's keywords
// less node, function, type and plan, which may be).
var reserved = map[string]bool{
	"and": true, "or": true, "in": true, "if": true, "elsif": true, "else": true, "unless": true,
	"case": true, "default": true, "true": true, "false": true, "undef": true, "class": true,
	"define": true, "inherits": true,
}

// literalWords are the reserved words that stay what they are before '{'.
var literalWords = map[string]bool{"true": true, "false": true, "undef": true, "default": true, "if": true, "unless": true, "case": true}

// braceless are the keywords that never name a resource type before '{'
// (Puppet's lexer makes them keyword tokens): an `else {` where no `if`
// is open is "Syntax error at 'else'", not a resource of type else.
var braceless = map[string]bool{"else": true, "elsif": true, "and": true, "or": true, "in": true}

// statementIfs are the literalWords that start an expression with a
// block; the others are values (LitWord tokens).
var statementIfs = map[string]bool{"if": true, "unless": true, "case": true}

func (s *tokenSource) peek(i int) *Token {
	if i < len(s.toks) {
		return &s.toks[i]
	}
	return &Token{Kind: TEOF}
}

// matchClose is the index of the bracket closing the one at i, or -1.
func (s *tokenSource) matchClose(i int) int {
	depth := 0
	for k := i; k < len(s.toks); k++ {
		t := &s.toks[k]
		if t.Kind != TPunct {
			continue
		}
		switch t.Val {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

func (s *tokenSource) nextIs(i int, punct string) bool {
	n := s.peek(i + 1)
	return n.Kind == TPunct && n.Val == punct
}

// word types a lower-case word by what the two tokens after it say, as
// Puppet's parser decides: a resource type before '{', a statement
// function, the start of a definition, a reserved word, or a name.
func (s *tokenSource) word(i int) plex.TokenType {
	t := &s.toks[i]
	if s.nextIs(i, "{") && !literalWords[t.Val] && !braceless[t.Val] {
		return gNameBrace
	}
	if statementCalls[t.Val] {
		return s.statementCall(i)
	}
	n := s.peek(i + 1)
	switch t.Val {
	case "class", "define", "function":
		if n.Kind == TName {
			return gDefStart
		}
	case "node":
		if !s.nextIs(i, "(") {
			return gDefStart
		}
	case "type":
		if n.Kind == TTypeName {
			return gDefStart
		}
	case "plan":
		if n.Kind == TName && (s.nextIs(i+1, "(") || s.nextIs(i+1, "{")) {
			if i >= s.taskEnd {
				b := i + 2
				if s.nextIs(i+1, "(") {
					b = s.matchClose(i+2) + 1
				}
				if b > i+1 && b < len(s.toks) && s.toks[b].Kind == TPunct && s.toks[b].Val == "{" {
					s.taskEnd = max(s.matchClose(b), 0)
				}
			}
			return gDefStart
		}
	case "apply":
		if i < s.taskEnd && s.nextIs(i, "(") {
			if k := s.matchClose(i + 1); k > 0 && s.nextIs(k, "{") {
				return gApply
			}
		}
	}
	switch t.Val {
	case "or", "and", "in":
		return gtBinOp
	}
	if literalWords[t.Val] && !statementIfs[t.Val] {
		return gLitWord
	}
	if reserved[t.Val] {
		return gKeyword
	}
	return gName
}

// punctTypes gives binary operators their class (which expressions take
// them); other punctuation is Punct.
var punctTypes = func() map[string]plex.TokenType {
	m := map[string]plex.TokenType{}
	for _, p := range puncts {
		m[p] = gPunct
	}
	for _, p := range []string{"->", "~>", "<-", "<~", "=", "+=", "-="} {
		m[p] = gtStmtOp
	}
	for _, p := range []string{"<", ">", "<=", ">=", "==", "!=", "<<", ">>", "+", "-", "*", "/", "%", "=~", "!~"} {
		m[p] = gtBinOp
	}
	return m
}()

// statementCall types a statement function's name: with arguments
// without parentheses (StmtCall), alone (StmtWord), or a plain name when
// what follows makes it something else (`include(...)`, `tag => x`).
func (s *tokenSource) statementCall(i int) plex.TokenType {
	if i+1 >= len(s.toks) {
		return gStmtWord
	}
	n := &s.toks[i+1]
	if n.Kind == TPunct && (n.Val == "(" || n.Val == "{" || n.Val == "=>" || n.Val == "=") {
		return gName
	}
	if startsExpr(n) && (!n.NL || n.Kind != TName) {
		return gStmtCall
	}
	return gStmtWord
}

// startsExpr reports whether t can begin an expression.
func startsExpr(t *Token) bool {
	switch t.Kind {
	case TName:
		return !(t.Val == "else" || t.Val == "elsif" || t.Val == "and" || t.Val == "or" || t.Val == "in" || t.Val == "inherits")
	case TTypeName, TVar, TString, TIString, TNumber, TRegex:
		return true
	case TPunct:
		switch t.Val {
		case "[", "{", "(", "-", "!", "@", "@@", "*":
			return true
		}
	}
	return false
}

// parseChunkGrammar parses toks (ending in TEOF) as a statement list. On a
// syntax error it returns the error and no statements.
func parseChunkGrammar(src []byte, toks []Token, follow *Token) (stmts []Node, err *Error) {
	n, eof := len(toks)-1, chunkEOF(toks)
	c := &conv{src: src, toks: toks[:n], eof: eof, follow: follow}
	if e := c.tooDeep(); e != nil {
		return nil, e
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			stmts, err = nil, c.err
		}
	}()
	pl, lerr := plex.Upgrade(&tokenSource{src: src, toks: toks[:n], eof: eof.Pos})
	if lerr != nil {
		return nil, &Error{Loc: Loc{eof.Pos, eof.End}, Msg: "Syntax error: " + lerr.Error()}
	}
	g, perr := manifestParser().ParseFromLexer(pl)
	if perr != nil {
		var pe participle.Error
		if errors.As(perr, &pe) {
			c.earlyComma(pe.Position().Offset)
		}
		c.grammarError(perr)
	}
	return c.statements(g), nil
}

// conv turns what the grammar read into the syntax tree.
type conv struct {
	src    []byte
	toks   []Token
	eof    Token
	follow *Token
	err    *Error
}

// tooDeep refuses nesting past maxDepth before the grammar recurses:
// brackets, and runs of unary signs (`!!--x`, splats `**x` too), which
// the tree nests one inside the other.
func (c *conv) tooDeep() *Error {
	depth, signs := 0, 0
	for i := range c.toks {
		t := &c.toks[i]
		if t.Kind == TPunct && (t.Val == "-" || t.Val == "!" || t.Val == "*") && (i == 0 || !endsExpr(&c.toks[i-1]) || signs > 0) {
			signs++
			if signs > maxDepth-2 {
				return &Error{Loc: Loc{t.Pos, t.End}, Msg: fmt.Sprintf("Syntax error at '%s'; nesting too deep", tokenText(c.src, t))}
			}
		} else {
			signs = 0
		}
		if t.Kind != TPunct {
			continue
		}
		switch t.Val {
		case "{", "[", "(", "|":
			depth++
			if depth > maxDepth/2 {
				return &Error{Loc: Loc{t.Pos, t.End}, Msg: fmt.Sprintf("Syntax error at '%s'; nesting too deep", tokenText(c.src, t))}
			}
		case "}", "]", ")":
			depth--
		}
	}
	return nil
}

// tok finds the lexer token that starts at a grammar token's offset.
func (c *conv) tok(t plex.Token) *Token {
	i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos >= t.Pos.Offset })
	if i < len(c.toks) && c.toks[i].Pos == t.Pos.Offset {
		return &c.toks[i]
	}
	return &c.eof
}

func (c *conv) loc(t plex.Token) Loc {
	k := c.tok(t)
	return Loc{k.Pos, k.End}
}

// failAt records a syntax error at a token, in the words of the hand
// parser this grammar replaced (Puppet's own: "Syntax error at 'x'").
func (c *conv) failAt(t *Token, expected string) {
	c.err = syntaxError(c.src, t, c.follow, expected)
	panic(bailout{})
}

func (c *conv) grammarError(err error) {
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) {
		t := c.tok(ut.Unexpected)
		if ut.Unexpected.Type == plex.EOF {
			t = &c.eof
		}
		c.illegalBefore(t.Pos)
		hint := c.expectation(t)
		if hint == "" {
			hint = expectedLiteral(ut.Message())
		}
		c.failAt(t, hint)
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		off := pe.Position().Offset
		c.illegalBefore(off)
		i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos >= off })
		if i < len(c.toks) {
			c.failAt(&c.toks[i], "")
		}
	}
	c.illegalBefore(c.eof.Pos)
	c.failAt(&c.eof, "")
}

// illegalBefore fails at the first token the lexer could not read before
// offset off: Puppet's lexer stops there, before its parser meets a later
// error (an illegal name inside a class left unclosed was reported at the
// unclosed class: lokeshreddy4u's dell/manifests/snmp.pp). The grammar
// reads such a token as a primary, so a parse that fails later passed it.
func (c *conv) illegalBefore(off int) {
	for i := range c.toks {
		if c.toks[i].Pos >= off {
			return
		}
		if c.toks[i].Kind == TIllegal {
			c.failAt(&c.toks[i], "")
		}
	}
}

// expectedLiteral turns participle's "(expected ")")" into the hand
// parser's "expected ')'" when one punctuation mark was expected.
func expectedLiteral(msg string) string {
	i := strings.LastIndex(msg, " (expected ")
	if i < 0 {
		return ""
	}
	e := strings.TrimSuffix(msg[i+len(" (expected "):], ")")
	if len(e) >= 3 && e[0] == '"' && e[len(e)-1] == '"' && !strings.ContainsAny(e[1:len(e)-1], "\\\" ") {
		if w := e[1 : len(e)-1]; !isIdentStart(w[0]) {
			return "expected '" + w + "'"
		}
	}
	return ""
}

// expectation adds what the hand parser said was expected where people
// most often meet the error: an attribute not followed by ',' or '}'.
func (c *conv) expectation(t *Token) string {
	i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos >= t.Pos })
	if i == 0 || i > len(c.toks) || !endsExpr(&c.toks[i-1]) {
		return "" // the value itself is unfinished
	}
	// Walk back over the previous value to the operator before it.
	depth := 0
	for k := i - 1; k >= 0; k-- {
		p := &c.toks[k]
		if p.Kind != TPunct {
			continue
		}
		switch p.Val {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			if depth == 0 {
				return ""
			}
			depth--
		case "=>", "+>":
			if depth == 0 && k > 0 && (c.toks[k-1].Kind == TName || c.toks[k-1].Val == "*") {
				return "expected ',' or '}'"
			}
		case ",", ";", ":":
			if depth == 0 {
				return ""
			}
		}
	}
	return ""
}

func (c *conv) statements(g *gStatements) []Node {
	if g == nil {
		return nil
	}
	var out []Node
	var list *gStatement // the first comma list
	bare := ""
	for _, s := range g.Stmts {
		for _, m := range s.More {
			if m.Expr == nil {
				c.failAt(c.after(m.Comma), "")
			}
		}
		if len(s.More) > 0 && list == nil {
			list = s
			if n, ok := lastOf(out).(*Name); ok {
				bare = n.Value
			}
		}
		out = append(out, c.statement(s))
	}
	if list != nil {
		// (when Puppet reduces the block: after the syntax errors in it)
		c.commaList(bare, list.More[0].Comma)
	}
	return out
}

// after is the lexer token after a grammar token (the chunk's end
// token after its last).
func (c *conv) after(t plex.Token) *Token {
	i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos > t.Pos.Offset })
	if i < len(c.toks) && c.toks[i].Kind != TEOF {
		return &c.toks[i]
	}
	return &c.eof
}

// commaList fails on a statement that is a comma separated list (`$a =
// 1, $b = 2`), at its first comma, in Puppet's words
// (parser_support.rb, transform_calls): after a bare word the list
// would be the arguments of a call without parentheses, which only the
// statement functions take.
func (c *conv) commaList(bare string, comma plex.Token) {
	t := c.tok(comma)
	msg := "illegal comma separated argument list"
	if bare != "" {
		msg = fmt.Sprintf("attempt to pass argument list to the function '%s' which cannot be called without parentheses", bare)
	}
	c.err = &Error{Loc: Loc{t.Pos, t.End}, Msg: msg}
	panic(bailout{})
}

func lastOf(ns []Node) Node {
	if len(ns) == 0 {
		return nil
	}
	return ns[len(ns)-1]
}

// earlyComma reports a comma list in a block that closes before offset
// off, where the grammar failed: Puppet's parser turns a block's
// statements into calls (and refuses a comma list) when it reduces them
// at the block's '}', before it reads on (ycl2045's idcos/dcospkg.pp:
// class parameters written as statements, then `} {`: "illegal comma
// separated argument list" at the first comma, not the syntax error
// lines later). Only a block with a comma outside brackets is read
// again, on its own.
func (c *conv) earlyComma(off int) {
	type frame struct {
		open, nest int
		comma      bool
	}
	var stack []frame
	for i := range c.toks {
		t := &c.toks[i]
		if t.Pos >= off {
			return
		}
		if t.Kind == TString || t.Kind == TIString || t.Kind == TRegex {
			continue
		}
		switch string(c.src[t.Pos:t.End]) {
		case "{":
			stack = append(stack, frame{open: i})
		case "(", "[":
			if len(stack) > 0 {
				stack[len(stack)-1].nest++
			}
		case ")", "]":
			if len(stack) > 0 {
				stack[len(stack)-1].nest--
			}
		case ",":
			if n := len(stack); n > 0 && stack[n-1].nest == 0 {
				stack[n-1].comma = true
			}
		case "}":
			if len(stack) == 0 {
				continue
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.comma {
				if err := commaListIn(c.src, c.toks[f.open+1:i], t); err != nil {
					c.err = err
					panic(bailout{})
				}
			}
		}
	}
}

// commaListIn is the error Puppet meets reading the statements toks hold
// (a block's, closed by close) up to the block's reduction, a comma list
// among them included; nil when they are no statements or read well.
func commaListIn(src []byte, toks []Token, close *Token) (out *Error) {
	c := &conv{src: src, toks: toks, eof: Token{Kind: TEOF, Pos: close.Pos, End: close.Pos}, follow: close}
	pl, lerr := plex.Upgrade(&tokenSource{src: src, toks: toks, eof: close.Pos})
	if lerr != nil {
		return nil
	}
	g, perr := manifestParser().ParseFromLexer(pl)
	if perr != nil || g == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			out = c.err
		}
	}()
	c.statements(g)
	return nil
}

func (c *conv) block(g *gBlock) ([]Node, Loc) {
	return c.statements(&g.Body), Loc{c.tok(g.Open).Pos, c.tok(g.Close).End}
}

func (c *conv) statement(g *gStatement) Node {
	switch {
	case g.Class != nil:
		d := g.Class
		nt := c.tok(d.Name)
		n := &ClassDef{Name: strings.TrimPrefix(nt.Val, "::"), NameLoc: Loc{nt.Pos, nt.End}}
		n.Pos = c.tok(d.Kw).Pos
		n.Params = c.params(d.Params)
		if d.Parent.Value != "" {
			pt := c.tok(d.Parent)
			n.Parent, n.ParentLoc = strings.TrimPrefix(pt.Val, "::"), Loc{pt.Pos, pt.End}
		}
		var loc Loc
		n.Body, loc = c.block(d.Body)
		n.End = loc.End
		return n
	case g.Define != nil:
		d := g.Define
		nt := c.tok(d.Name)
		n := &DefineDef{Name: strings.TrimPrefix(nt.Val, "::"), NameLoc: Loc{nt.Pos, nt.End}}
		n.Pos = c.tok(d.Kw).Pos
		n.Params = c.params(d.Params)
		var loc Loc
		n.Body, loc = c.block(d.Body)
		n.End = loc.End
		return n
	case g.Node != nil:
		return c.nodeDef(g.Node)
	case g.Function != nil:
		d := g.Function
		nt := c.tok(d.Name)
		n := &FunctionDef{Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
		n.Pos = c.tok(d.Kw).Pos
		n.Params = c.params(d.Params)
		if d.Return != nil {
			n.Return = c.coperand(d.Return)
		}
		var loc Loc
		n.Body, loc = c.block(d.Body)
		n.End = loc.End
		return n
	case g.Alias != nil:
		d := g.Alias
		nt := c.tok(d.Name)
		n := &TypeAlias{Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
		n.Pos = c.tok(d.Kw).Pos
		n.Value = c.cexpr2(d.Value)
		n.End = n.Value.Span().End
		return n
	case g.Plan != nil:
		d := g.Plan
		kw, nt := c.tok(d.Kw), c.tok(d.Name)
		n := &Block{Keyword: kw.Val, Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
		n.Pos = kw.Pos
		n.Params = c.params(d.Params)
		var loc Loc
		n.Body, loc = c.block(d.Body)
		n.End = loc.End
		return n
	case g.Call != nil:
		name := g.Call.Name
		if name.Type == 0 {
			name = g.Call.Word
		}
		nt := c.tok(name)
		n := &Call{Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
		n.Pos, n.End = nt.Pos, nt.End
		for _, a := range g.Call.Args {
			x := c.expr3(a)
			n.Args = append(n.Args, x)
			n.End = x.Span().End
		}
		return n
	}
	return c.expr(g.Expr)
}

func (c *conv) nodeDef(g *gNodeDef) Node {
	n := &NodeDef{}
	n.Pos = c.tok(g.Kw).Pos
	for _, m := range g.Matches {
		switch {
		case m.Str.Type != 0:
			n.Matches = append(n.Matches, c.literal(c.tok(m.Str)))
		case m.Default.Type != 0:
			n.Matches = append(n.Matches, &Default{Loc: c.loc(m.Default)})
		default:
			a, b := c.tok(m.Tokens[0]).Pos, c.tok(m.Tokens[len(m.Tokens)-1]).End
			n.Matches = append(n.Matches, &Str{Loc: Loc{a, b}, Value: string(c.src[a:b])})
		}
	}
	if g.Parent != nil {
		n.Parent = c.primary(g.Parent)
	}
	var loc Loc
	n.Body, loc = c.block(g.Body)
	n.End = loc.End
	return n
}

func (c *conv) params(g *gParams) []*Param {
	if g == nil {
		return nil
	}
	out := []*Param{}
	for _, p := range g.List {
		out = append(out, c.param(p))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (c *conv) param(g *gParam) *Param {
	p := &Param{}
	vt := c.tok(g.Name)
	p.Pos = vt.Pos
	if g.Type != nil {
		tt := c.tok(g.Type.Name)
		p.Pos = tt.Pos
		p.Type = c.postOps(&TypeRef{Loc: Loc{tt.Pos, tt.End}, Value: tt.Val}, g.Type.Ops)
	} else if g.Splat {
		p.Pos = vt.Pos
		// the '*' before the name
		i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos >= vt.Pos })
		if i > 0 {
			p.Pos = c.toks[i-1].Pos
		}
	}
	p.Splat = g.Splat
	p.Name, p.NameLoc, p.End = vt.Val, Loc{vt.Pos, vt.End}, vt.End
	if g.Default != nil {
		p.Default = c.expr2(g.Default)
		p.End = p.Default.Span().End
	}
	return p
}

// ---- operators ----

// binary builds the tree of a flat operand/operator list with the
// precedence and associativity of binPrec (assignment is right
// associative, everything else left).
func (c *conv) binary(xs []Node, ops []*Token) Node {
	pos := 0
	var climb func(min int) Node
	climb = func(min int) Node {
		left := xs[pos]
		for pos < len(ops) {
			ot := ops[pos]
			pr := binPrec[ot.Val]
			if pr <= min {
				return left
			}
			pos++
			next := pr
			if pr == 2 {
				next = pr - 1
			}
			right := climb(next)
			b := &Binary{Op: ot.Val, OpLoc: Loc{ot.Pos, ot.End}, Left: left, Right: right}
			b.Pos, b.End = left.Span().Pos, right.Span().End
			left = b
		}
		return left
	}
	return climb(0)
}

// flat gathers a flat operand/operator list for binary: the expression
// productions differ only in which operators they take.
func flat[O any](c *conv, left Node, ops []string, rights []O, operand func(O) Node) Node {
	if len(ops) == 0 {
		return left
	}
	xs := make([]Node, 0, len(rights)+1)
	xs = append(xs, left)
	toks := make([]*Token, 0, len(ops))
	for k, o := range rights {
		x := operand(o)
		xs = append(xs, x)
		toks = append(toks, c.opBefore(x, ops[k]))
	}
	return c.binary(xs, toks)
}

// opBefore is the operator token before the right operand x (the token
// before x's first one), whose text the grammar read as op.
func (c *conv) opBefore(x Node, op string) *Token {
	pos := x.Span().Pos
	i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos >= pos })
	if i > 0 && i <= len(c.toks) && c.toks[i-1].Val == op {
		return &c.toks[i-1]
	}
	// Unreachable: every operand's span starts at its first token. Should
	// it not, the operator is a syntax error rather than a crash.
	c.failAt(c.tokAt(pos), "")
	return nil
}

func (c *conv) expr(g *gExpr) Node {
	return flat(c, c.postOps(c.rprimary(&g.Primary), g.Post), g.Ops, g.Rights, c.operand)
}

func (c *conv) expr2(g *gExpr2) Node {
	return flat(c, c.postOps(c.rprimary(&g.Primary), g.Post), g.Ops, g.Rights, c.operand)
}

func (c *conv) expr3(g *gExpr3) Node {
	return flat(c, c.postOps(c.rprimary(&g.Primary), g.Post), g.Ops, g.Rights, c.operand)
}

func (c *conv) cexpr(g *gCExpr) Node {
	return flat(c, c.postOps(c.primary(&g.Primary), g.Post), g.Ops, g.Rights, c.coperand)
}

func (c *conv) cexpr2(g *gCExpr2) Node {
	return flat(c, c.postOps(c.primary(&g.Primary), g.Post), g.Ops, g.Rights, c.coperand)
}

// unary is a sign and the operand it applies to (postfix operators
// bind tighter: -$a[0] is -($a[0])).
func (c *conv) unary(sign plex.Token, x Node) Node {
	st := c.tok(sign)
	u := &Unary{Op: st.Val, X: x}
	u.Pos, u.End = st.Pos, x.Span().End
	return u
}

func (c *conv) coperand(g *gCOperand) Node {
	return c.postOps(c.primary(&g.Primary), g.Ops)
}

// name is a bare word; a reserved word is never one (`class` and
// `define` come as DefStart tokens, and a word before '{' as NameBrace).
func (c *conv) name(t *Token) Node {
	if reserved[t.Val] {
		c.failAt(t, "")
	}
	return &Name{Loc: Loc{t.Pos, t.End}, Value: t.Val}
}

func (c *conv) operand(g *gOperand) Node {
	return c.postOps(c.rprimary(&g.Primary), g.Ops)
}

// rprimary converts a value where resources may be declared: the block
// after a word, a variable or a capitalised name gives it its meaning
// (a resource, resource defaults, an override, a collector's override).
func (c *conv) rprimary(g *gRPrimary) Node {
	switch {
	case g.Str != nil:
		return c.literal(c.tok(*g.Str))
	case g.Var != nil:
		return c.literal(c.tok(*g.Var))
	case g.Name != nil:
		return c.nameOrCall(*g.Name, g.Args, g.Lambda)
	case g.Type != nil:
		return c.typeTail(c.tok(*g.Type), g)
	case g.ResType != nil:
		t := c.tok(*g.ResType)
		return c.resource(t, t.Pos, g.ResBody)
	case g.VarType != nil:
		t := c.tok(*g.VarType)
		v := &Var{Loc: Loc{t.Pos, t.End}, Name: t.Val}
		r := &Resource{TypeExpr: v, TypeLoc: Loc{t.Pos, t.End}}
		r.Bodies = c.resBodies(g.VarBody)
		r.Pos, r.End = t.Pos, c.tok(g.VarBody.Close).End
		return r
	case g.At != nil:
		at := c.tok(*g.At)
		r := c.resource(c.tok(*g.AtType), at.Pos, g.AtBody)
		r.Virtual, r.Exported = true, at.Val == "@@"
		return r
	case g.Sign != nil:
		return c.unary(*g.Sign, c.operand(g.Signed))
	}
	// the alternatives both kinds of primary have
	return c.primary(&gPrimary{Number: g.Number, Word: g.Word, Word2: g.Word2, Args2: g.Args2, Lambda2: g.Lambda2,
		IfKw: g.IfKw, If: g.If, CaseKw: g.CaseKw, Case: g.Case, KwCall: g.KwCall, KwArgs: g.KwArgs, KwLambda: g.KwLambda,
		Apply: g.Apply, ApplyArgs: g.ApplyArgs, ApplyBody: g.ApplyBody,
		ArrOpen: g.ArrOpen, ArrList: g.ArrList, ArrClose: g.ArrClose, HashOpen: g.HashOpen, Entries: g.Entries,
		HashEnd: g.HashEnd, ParOpen: g.ParOpen, ParX: g.ParX, ParClose: g.ParClose, Illegal: g.Illegal})
}

// nameOrCall is a bare word, or a call when arguments follow it.
func (c *conv) nameOrCall(name plex.Token, args *gArgs, lambda *gLambda) Node {
	if args != nil {
		return c.call(c.tok(name), args, lambda)
	}
	return c.name(c.tok(name))
}

// typeTail converts a capitalised name and what follows it.
func (c *conv) typeTail(t *Token, g *gRPrimary) Node {
	tr := &TypeRef{Loc: Loc{t.Pos, t.End}, Value: t.Val}
	switch {
	case g.CollOpen != nil:
		col := c.collector(tr, *g.CollOpen, g.CollQuery, *g.CollClose)
		if g.CollBody != nil {
			col.Attrs = c.bodyAttrs(g.CollBody)
			col.HasAttrs = true
			col.End = c.tok(g.CollBody.Close).End
		}
		return col
	case g.Defaults != nil && (len(g.Defaults.Bodies) > 0 || g.Defaults.Bad != nil):
		// Exec { 'title': ... }: a declaration, as in the hand parser
		return c.resource(t, t.Pos, g.Defaults)
	case g.Defaults != nil:
		d := &ResourceDefaults{Type: tr, Attrs: c.bodyAttrs(g.Defaults)}
		d.Pos, d.End = t.Pos, c.tok(g.Defaults.Close).End
		return d
	case g.New != nil:
		return c.call(t, g.New, g.NewLambda)
	case g.AccClose == nil:
		return tr
	}
	a := &Access{X: tr, Args: c.list(g.AccList)}
	a.Pos, a.End = tr.Pos, c.tok(*g.AccClose).End
	b := g.AccBody
	if b == nil {
		return a
	}
	end := c.tok(b.Close).End
	if tr.Value == "Resource" && len(a.Args) == 1 && len(b.Bodies) > 0 {
		r := &Resource{TypeExpr: a.Args[0], TypeLoc: *a.Args[0].Span()}
		r.Bodies = c.resBodies(b)
		r.Pos, r.End = tr.Pos, end
		return r
	}
	o := &ResourceOverride{Ref: a, Attrs: c.bodyAttrs(b)}
	o.Pos, o.End = tr.Pos, end
	return o
}

// resource is `type { title: attrs; ... }` starting at start.
func (c *conv) resource(t *Token, start int, b *gBody) *Resource {
	r := &Resource{Type: strings.ToLower(t.Val), TypeLoc: Loc{t.Pos, t.End}}
	r.Bodies = c.resBodies(b)
	r.Pos, r.End = start, c.tok(b.Close).End
	return r
}

// badBody reports a block that holds neither titles nor attributes.
func (c *conv) badBody(b *gBody, expected string) {
	if b.Bad != nil {
		x := c.expr2(b.Bad)
		c.failAt(c.tokAt(x.Span().Pos), expected)
	}
}

func (c *conv) tokAt(pos int) *Token {
	i := sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos >= pos })
	if i < len(c.toks) {
		return &c.toks[i]
	}
	return &c.eof
}

func (c *conv) resBodies(b *gBody) []*ResourceBody {
	if b.Bad != nil {
		x := c.expr2(b.Bad)
		c.failAt(c.tokAt(x.Span().End), "expected ':'")
	}
	if len(b.Attrs) > 0 {
		c.failAt(c.tok(b.Attrs[0].Op), "expected ':'")
	}
	var out []*ResourceBody
	for _, rb := range b.Bodies {
		title := c.expr2(&rb.Title)
		body := &ResourceBody{Title: title, Attrs: c.attrs(rb.Attrs)}
		body.Pos = title.Span().Pos
		body.End = c.tok(rb.Tokens[len(rb.Tokens)-1]).End
		out = append(out, body)
	}
	return out
}

func (c *conv) attrs(gs []*gAttr) []*Attr {
	var out []*Attr
	for _, a := range gs {
		nt, ot := c.tok(a.Name), c.tok(a.Op)
		v := c.expr2(&a.Value)
		at := &Attr{Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}, Op: ot.Val, Value: v}
		at.Pos, at.End = nt.Pos, v.Span().End
		out = append(out, at)
	}
	return out
}

// bodyAttrs reads a block that must hold attributes.
func (c *conv) bodyAttrs(b *gBody) []*Attr {
	c.badBody(b, "expected an attribute name")
	if len(b.Bodies) > 0 {
		c.failAt(c.tok(b.Bodies[0].Tokens[0]), "expected an attribute name")
	}
	return c.attrs(b.Attrs)
}

func (c *conv) postOps(x Node, ops []*gPostOp) Node {
	for _, op := range ops {
		switch {
		case op.AccClose != nil:
			a := &Access{X: x, Args: c.list(op.AccList)}
			a.Pos, a.End = x.Span().Pos, c.tok(*op.AccClose).End
			x = a
		case op.Method != nil:
			nt := c.tok(*op.Method)
			mc := &MethodCall{Recv: x, Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
			mc.Pos, mc.End = x.Span().Pos, nt.End
			if op.MArgs != nil {
				mc.Args = c.alist(&op.MArgs.List)
				mc.End = c.tok(op.MArgs.Close).End
			}
			if op.MLambda != nil {
				mc.Lambda = c.lambda(op.MLambda)
				mc.End = mc.Lambda.End
			}
			x = mc
		default:
			s := &Selector{X: x}
			for _, sc := range op.Cases {
				s.Cases = append(s.Cases, SelCase{Match: c.expr2(&sc.Match), Value: c.expr2(&sc.Value)})
			}
			s.Pos, s.End = x.Span().Pos, c.tok(*op.SelClose).End
			x = s
		}
	}
	return x
}

// list reads the inside of [...] or (...): `k => v` pairs next to each
// other make one hash.
func (c *conv) list(g *gList) []Node {
	if g == nil {
		return nil
	}
	return pairsToHashes(g.Elems, func(e *gElem) (Node, Node) {
		if e.Value == nil {
			return c.expr2(&e.X), nil
		}
		return c.expr2(&e.X), c.expr2(e.Value)
	})
}

func (c *conv) alist(g *gAList) []Node {
	if g == nil {
		return nil
	}
	return pairsToHashes(g.Elems, func(e *gAElem) (Node, Node) {
		if e.Value == nil {
			return c.expr(&e.X), nil
		}
		return c.expr(&e.X), c.expr(e.Value)
	})
}

// pairsToHashes converts a list's elements: a value alone, and each run
// of `k => v` pairs one hash.
func pairsToHashes[E any](elems []E, conv func(E) (x, v Node)) []Node {
	var out []Node
	var h *Hash
	for _, e := range elems {
		x, v := conv(e)
		if v == nil {
			h = nil
			out = append(out, x)
			continue
		}
		if h == nil {
			h = &Hash{}
			h.Pos = x.Span().Pos
			out = append(out, h)
		}
		h.Entries = append(h.Entries, HashEntry{Key: x, Value: v})
		h.End = v.Span().End
	}
	return out
}

func (c *conv) lambda(g *gLambda) *Lambda {
	l := &Lambda{}
	for _, p := range g.Params {
		l.Params = append(l.Params, c.param(p))
	}
	var loc Loc
	l.Body, loc = c.block(g.Body)
	l.Pos, l.End = c.tok(g.Open).Pos, loc.End
	return l
}

func (c *conv) call(name *Token, args *gArgs, lambda *gLambda) *Call {
	n := &Call{Name: name.Val, NameLoc: Loc{name.Pos, name.End}, Parens: true}
	n.Args = c.alist(&args.List)
	n.Pos, n.End = name.Pos, c.tok(args.Close).End
	if lambda != nil {
		n.Lambda = c.lambda(lambda)
		n.End = n.Lambda.End
	}
	return n
}

// literal converts a string, number, regex or variable token.
func (c *conv) literal(t *Token) Node {
	loc := Loc{t.Pos, t.End}
	switch t.Kind {
	case TString:
		return &Str{Loc: loc, Value: t.Val}
	case TIString:
		return c.istring(t)
	case TNumber:
		return &Num{Loc: loc, Text: t.Val}
	case TRegex:
		return &Regex{Loc: loc, Value: t.Val}
	case TVar:
		return &Var{Loc: loc, Name: t.Val}
	}
	c.failAt(t, "")
	return nil
}

func (c *conv) primary(g *gPrimary) Node {
	switch {
	case g.Str != nil:
		return c.literal(c.tok(*g.Str))
	case g.Var != nil:
		return c.literal(c.tok(*g.Var))
	case g.Number != nil:
		return c.literal(c.tok(*g.Number))
	case g.Word != nil:
		return c.word(c.tok(*g.Word))
	case g.Name != nil:
		return c.nameOrCall(*g.Name, g.Args, g.Lambda)
	case g.Word2 != nil:
		return c.nameOrCall(*g.Word2, g.Args2, g.Lambda2)
	case g.Type != nil:
		t := c.tok(*g.Type)
		tr := &TypeRef{Loc: Loc{t.Pos, t.End}, Value: t.Val}
		switch {
		case g.CollOpen != nil:
			return c.collector(tr, *g.CollOpen, g.CollQuery, *g.CollClose)
		case g.New != nil:
			return c.call(t, g.New, g.NewLambda)
		}
		return tr
	case g.Sign != nil:
		return c.unary(*g.Sign, c.coperand(g.Signed))
	case g.IfKw != nil:
		return c.ifNode(*g.IfKw, g.If)
	case g.CaseKw != nil:
		return c.caseNode(*g.CaseKw, g.Case)
	case g.KwCall != nil:
		return c.call(c.tok(*g.KwCall), g.KwArgs, g.KwLambda)
	case g.Apply != nil:
		// tasks mode: the block is the call's parameterless lambda
		n := c.call(c.tok(*g.Apply), g.ApplyArgs, nil)
		body, loc := c.block(g.ApplyBody)
		n.Lambda = &Lambda{Loc: loc, Body: body}
		n.End = n.Lambda.End
		return n
	case g.ArrOpen != nil:
		return c.array(*g.ArrOpen, g.ArrList, *g.ArrClose)
	case g.HashOpen != nil:
		return c.hash(*g.HashOpen, g.Entries, *g.HashEnd)
	case g.ParOpen != nil:
		return c.paren(*g.ParOpen, g.ParX, *g.ParClose)
	}
	c.failAt(c.tok(*g.Illegal), "")
	return nil
}

func (c *conv) word(t *Token) Node {
	loc := Loc{t.Pos, t.End}
	switch t.Val {
	case "true", "false":
		return &Bool{Loc: loc, Value: t.Val == "true"}
	case "undef":
		return &Undef{Loc: loc}
	}
	return &Default{Loc: loc}
}

func (c *conv) array(open plex.Token, list *gAList, cl plex.Token) Node {
	a := &Array{Elems: c.alist(list)}
	a.Pos, a.End = c.tok(open).Pos, c.tok(cl).End
	return a
}

func (c *conv) hash(open plex.Token, entries []*gHashEntry, cl plex.Token) Node {
	h := &Hash{}
	for _, e := range entries {
		h.Entries = append(h.Entries, HashEntry{Key: c.expr(&e.Key), Value: c.expr(&e.Value)})
	}
	h.Pos, h.End = c.tok(open).Pos, c.tok(cl).End
	return h
}

func (c *conv) paren(open plex.Token, x *gExpr, cl plex.Token) Node {
	p := &Paren{X: c.expr(x)}
	p.Pos, p.End = c.tok(open).Pos, c.tok(cl).End
	return p
}

func (c *conv) collector(tr *TypeRef, openTok plex.Token, query *gExpr2, closeTok plex.Token) *Collector {
	open, cl := c.tok(openTok), c.tok(closeTok)
	exported := open.Val == "<<|"
	if (cl.Val == "|>>") != exported {
		c.failAt(cl, "expected '"+map[bool]string{true: "|>>", false: "|>"}[exported]+"'")
	}
	col := &Collector{Type: tr, Exported: exported}
	if query != nil {
		col.Query = c.expr2(query)
	}
	col.Pos, col.End = tr.Pos, cl.End
	return col
}

func (c *conv) ifNode(kw plex.Token, g *gIfTail) Node {
	return c.ifArms(kw, g.Cond, g.Then, g.Elif, g.Else)
}

func (c *conv) ifArms(kw plex.Token, cond *gCExpr, then *gBlock, elif *gElsif, els *gBlock) Node {
	kt := c.tok(kw)
	n := &If{Unless: kt.Val == "unless"}
	n.Pos = kt.Pos
	n.Cond = c.cexpr(cond)
	var loc Loc
	n.Then, loc = c.block(then)
	n.End = loc.End
	switch {
	case elif != nil:
		if n.Unless {
			c.failAt(c.tok(elif.Kw), "")
		}
		e := c.ifArms(elif.Kw, elif.Cond, elif.Then, elif.Elif, elif.Else)
		n.Else, n.HasElse = []Node{e}, true
		n.End = e.Span().End
	case els != nil:
		n.Else, loc = c.block(els)
		n.HasElse = true
		n.End = loc.End
	}
	return n
}

func (c *conv) caseNode(kw plex.Token, g *gCaseTail) Node {
	n := &Case{}
	n.Pos = c.tok(kw).Pos
	n.X = c.cexpr(g.X)
	for _, o := range g.Options {
		var opt CaseOption
		for _, v := range o.Values {
			opt.Values = append(opt.Values, c.cexpr2(v))
		}
		opt.Loc.Pos = opt.Values[0].Span().Pos
		var loc Loc
		opt.Body, loc = c.block(o.Body)
		opt.Loc.End = loc.End
		n.Options = append(n.Options, opt)
	}
	n.End = c.tok(g.Close).End
	return n
}

func (c *conv) istring(t *Token) Node {
	return stringParts(c.src, t, c.interpolation)
}

// interpolation parses the expression inside ${...}; a leading bare word
// is a variable name there.
func (c *conv) interpolation(pos, end int) Node {
	toks := interpolationTokens(c.src, pos, end)
	if len(toks) == 1 {
		return &Str{Loc: Loc{pos, end}}
	}
	n := len(toks) - 1
	sub := &conv{src: c.src, toks: toks[:n], eof: toks[n]}
	if e := sub.tooDeep(); e != nil {
		c.err = e
		panic(bailout{})
	}
	var x Node
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(bailout); !ok {
					panic(r)
				}
			}
		}()
		pl, err := plex.Upgrade(&tokenSource{src: c.src, toks: toks[:n], eof: toks[n].Pos})
		if err != nil {
			sub.failAt(&sub.eof, "")
		}
		g, err := interpolationParser().ParseFromLexer(pl)
		if err != nil {
			sub.grammarError(err)
		}
		x = sub.expr(&g.X)
	}()
	if sub.err != nil {
		c.err = sub.err
		panic(bailout{})
	}
	return x
}
