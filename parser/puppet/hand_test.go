package puppet

// The hand-written parser (parser.go until the analysis switched to the
// participle grammar): the differential tests' oracle.

import (
	"fmt"
	"strings"
	"sync"
)

var keywords = map[string]bool{
	"and": true, "or": true, "in": true, "if": true, "elsif": true, "else": true, "unless": true,
	"case": true, "default": true, "true": true, "false": true, "undef": true, "class": true,
	"define": true, "node": true, "inherits": true, "function": true, "type": true,
}

func init() { handParse = parseTokens }

type parser struct {
	src   []byte
	toks  []Token // toks[n] and beyond read as eof
	n     int
	eof   Token
	i     int
	depth int
	err   *Error
	// eofAt: when a chunk is a slice of a bigger file, the token that
	// follows it (for "Syntax error at 'x'").
	follow *Token
	ls     *listStack // shared with the parsers of interpolations
	// tasks: inside a plan, where Puppet's tasks mode reads
	// `apply(...) { }` blocks.
	tasks bool
}

func (p *parser) tok() *Token {
	if p.i < p.n {
		return &p.toks[p.i]
	}
	return &p.eof
}
func (p *parser) peek(n int) *Token {
	if p.i+n < p.n {
		return &p.toks[p.i+n]
	}
	return &p.eof
}
func (p *parser) advance() *Token {
	t := p.tok()
	if t.Kind != TEOF {
		p.i++
	}
	return t
}

// prev is the token before the current one.
func (p *parser) prev() *Token {
	if p.i > 0 && p.i-1 < p.n {
		return &p.toks[p.i-1]
	}
	return &p.eof
}

func (p *parser) is(val string) bool {
	t := p.tok()
	return t.Kind == TPunct && t.Val == val
}

func (p *parser) isWord(val string) bool {
	t := p.tok()
	return t.Kind == TName && t.Val == val
}

func (p *parser) accept(val string) bool {
	if p.is(val) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(val string) *Token {
	if !p.is(val) {
		p.fail(fmt.Sprintf("expected '%s'", val))
	}
	return p.advance()
}

// fail records a syntax error at the current token and unwinds the chunk.
func (p *parser) fail(expected string) {
	p.err = syntaxError(p.src, p.tok(), p.follow, expected)
	panic(bailout{})
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("nesting too deep")
	}
}
func (p *parser) leave() { p.depth-- }

// statements parses until '}' or TEOF.
func (p *parser) statements() []Node {
	ls := p.ls
	base := len(ls.nodes)
	for {
		for p.accept(";") {
		}
		t := p.tok()
		if t.Kind == TEOF || (t.Kind == TPunct && t.Val == "}") {
			return ls.popNodes(base)
		}
		x := p.statement()
		ls.nodes = append(ls.nodes, x)
	}
}

func (p *parser) block() ([]Node, Loc) {
	open := p.expect("{")
	body := p.statements()
	cl := p.expect("}")
	return body, Loc{open.Pos, cl.End}
}

func (p *parser) statement() Node {
	t := p.tok()
	if t.Kind == TName {
		n1 := p.peek(1)
		switch t.Val {
		case "class":
			if n1.Kind == TName {
				return p.classDef()
			}
		case "define":
			if n1.Kind == TName {
				return p.defineDef()
			}
		case "node":
			if !(n1.Kind == TPunct && (n1.Val == "{" || n1.Val == "(")) {
				return p.nodeDef()
			}
		case "function":
			if n1.Kind == TName {
				return p.functionDef()
			}
		case "type":
			if n1.Kind == TTypeName {
				return p.typeAlias()
			}
		case "plan":
			if n1.Kind == TName && p.peek(2).Kind == TPunct && (p.peek(2).Val == "(" || p.peek(2).Val == "{") {
				return p.plan()
			}
		}
		if statementCalls[t.Val] && !(n1.Kind == TPunct && (n1.Val == "(" || n1.Val == "{" || n1.Val == "=>" || n1.Val == "=")) {
			return p.statementCall()
		}
	}
	return p.expr(0, true)
}

func (p *parser) statementCall() Node {
	name := p.advance()
	c := &Call{Name: name.Val, NameLoc: Loc{name.Pos, name.End}}
	c.Pos = name.Pos
	c.End = name.End
	if p.startsExpr() && !p.tok().NL || p.startsExpr() && p.tok().Kind != TName {
		for {
			a := p.expr(3, true)
			c.Args = append(c.Args, a)
			c.End = a.Span().End
			if !p.accept(",") {
				break
			}
		}
	}
	return c
}

// startsExpr reports whether the current token can begin an expression.
func (p *parser) startsExpr() bool { return startsExpr(p.tok()) }

func (p *parser) binOp() (string, int) {
	t := p.tok()
	switch t.Kind {
	case TPunct:
		if pr, ok := binPrec[t.Val]; ok {
			return t.Val, pr
		}
	case TName:
		if t.Val == "and" || t.Val == "or" || t.Val == "in" {
			return t.Val, binPrec[t.Val]
		}
	}
	return "", 0
}

// expr parses a binary expression whose operators bind tighter than min.
// resources says whether `name { ... }` is a resource here (it is not in
// the condition of an if/unless/case).
func (p *parser) expr(min int, resources bool) Node {
	p.enter()
	defer p.leave()
	left := p.unary(resources)
	for {
		op, pr := p.binOp()
		if pr == 0 || pr <= min {
			return left
		}
		ot := p.advance()
		next := pr
		if pr == 2 { // assignment is right associative
			next = pr - 1
		}
		right := p.expr(next, resources)
		b := &Binary{Op: op, OpLoc: Loc{ot.Pos, ot.End}, Left: left, Right: right}
		b.Pos = left.Span().Pos
		b.End = right.Span().End
		left = b
	}
}

func (p *parser) unary(resources bool) Node {
	t := p.tok()
	if t.Kind == TPunct && (t.Val == "-" || t.Val == "!" || t.Val == "*") {
		p.advance()
		p.enter()
		x := p.unary(resources)
		p.leave()
		u := &Unary{Op: t.Val, X: x}
		u.Pos, u.End = t.Pos, x.Span().End
		return u
	}
	return p.postfix(p.primary(resources), resources)
}

func (p *parser) postfix(x Node, resources bool) Node {
	for i := 0; ; i++ {
		t := p.tok()
		if t.Kind != TPunct {
			return x
		}
		switch t.Val {
		case "[":
			// `[` after whitespace starts a new list, not an access.
			if prev := p.prev(); t.Pos > prev.End {
				return x
			}
			p.advance()
			a := &Access{X: x}
			a.Args = p.list("]")
			cl := p.expect("]")
			a.Pos, a.End = x.Span().Pos, cl.End
			x = a
		case ".":
			p.advance()
			nt := p.tok()
			if nt.Kind != TName && nt.Kind != TTypeName {
				p.fail("expected a method name")
			}
			p.advance()
			m := &MethodCall{Recv: x, Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
			m.Pos, m.End = x.Span().Pos, nt.End
			if p.is("(") {
				p.advance()
				m.Args = p.list(")")
				m.End = p.expect(")").End
			}
			if p.is("|") {
				m.Lambda = p.lambda()
				m.End = m.Lambda.End
			}
			x = m
		case "?":
			p.advance()
			s := &Selector{X: x}
			p.expect("{")
			for !p.is("}") {
				m := p.expr(2, true)
				p.expect("=>")
				v := p.expr(2, true)
				s.Cases = append(s.Cases, SelCase{Match: m, Value: v})
				if !p.accept(",") {
					break
				}
			}
			cl := p.expect("}")
			s.Pos, s.End = x.Span().Pos, cl.End
			x = s
		default:
			return x
		}
	}
}

// list parses comma-separated expressions up to (not including) close,
// allowing a trailing comma.
func (p *parser) list(close string) []Node {
	ls := p.ls
	base := len(ls.nodes)
	var h *Hash // `k => v` pairs without braces form one hash
	for !p.is(close) {
		x := p.expr(2, true)
		if p.is("=>") {
			p.advance()
			v := p.expr(2, true)
			if h == nil {
				h = &Hash{}
				h.Pos = x.Span().Pos
				ls.nodes = append(ls.nodes, h)
			}
			h.Entries = append(h.Entries, HashEntry{Key: x, Value: v})
			h.End = v.Span().End
		} else {
			h = nil
			ls.nodes = append(ls.nodes, x)
		}
		if !p.accept(",") {
			break
		}
	}
	return ls.popNodes(base)
}

func (p *parser) primary(resources bool) Node {
	t := p.tok()
	switch t.Kind {
	case TString:
		p.advance()
		return &Str{Loc: Loc{t.Pos, t.End}, Value: t.Val}
	case TIString:
		p.advance()
		return p.istring(t)
	case TNumber:
		p.advance()
		return &Num{Loc: Loc{t.Pos, t.End}, Text: t.Val}
	case TRegex:
		p.advance()
		return &Regex{Loc: Loc{t.Pos, t.End}, Value: t.Val}
	case TVar:
		p.advance()
		v := &Var{Loc: Loc{t.Pos, t.End}, Name: t.Val}
		if resources && p.is("{") {
			// $type { 'title': ... }: a resource whose type is computed.
			p.i--
			r := p.resource(t.Pos).(*Resource)
			r.Type = ""
			r.TypeExpr = v
			return r
		}
		return v
	case TTypeName:
		return p.typeExpr(resources)
	case TName:
		return p.word(resources)
	case TPunct:
		switch t.Val {
		case "[":
			if p.i > 0 && t.Pos == p.prev().End && endsExpr(p.prev()) {
				// touching what precedes, Puppet reads an access on it;
				// nothing here can take one (`function f() {0}[1]`)
				p.fail("")
			}
			p.advance()
			a := &Array{}
			a.Elems = p.list("]")
			a.Pos, a.End = t.Pos, p.expect("]").End
			return a
		case "{":
			return p.hash()
		case "(":
			p.advance()
			x := p.expr(0, true)
			pr := &Paren{X: x}
			pr.Pos, pr.End = t.Pos, p.expect(")").End
			return pr
		case "@", "@@":
			p.advance()
			nt := p.tok()
			if nt.Kind != TName || !(p.peek(1).Kind == TPunct && p.peek(1).Val == "{") {
				p.fail("expected a resource declaration after '" + t.Val + "'")
			}
			r := p.resource(t.Pos).(*Resource)
			r.Virtual = true
			r.Exported = t.Val == "@@"
			return r
		}
	}
	p.fail("")
	return nil
}

func (p *parser) hash() Node {
	open := p.expect("{")
	h := &Hash{}
	for !p.is("}") {
		k := p.expr(2, true)
		p.expect("=>")
		v := p.expr(2, true)
		h.Entries = append(h.Entries, HashEntry{Key: k, Value: v})
		if !p.accept(",") {
			break
		}
	}
	h.Pos, h.End = open.Pos, p.expect("}").End
	return h
}

func (p *parser) istring(t *Token) Node {
	return stringParts(p.src, t, p.interpolation)
}

// interpolation parses the expression inside ${...}; a leading bare word
// is a variable name there.
func (p *parser) interpolation(pos, end int) Node {
	toks := interpolationTokens(p.src, pos, end)
	sub := &parser{src: p.src, toks: toks, n: len(toks) - 1, eof: toks[len(toks)-1], depth: p.depth + 1, ls: p.ls}
	if len(toks) == 1 {
		return &Str{Loc: Loc{pos, end}}
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
		x = sub.expr(0, true)
		if sub.tok().Kind != TEOF {
			sub.fail("")
		}
	}()
	if sub.err != nil {
		p.err = sub.err
		panic(bailout{})
	}
	return x
}

// typeExpr: TTypeName, TTypeName[...], collectors, resource defaults and
// overrides (`File { }`, `File['x'] { }`).
func (p *parser) typeExpr(resources bool) Node {
	t := p.advance()
	tr := &TypeRef{Loc: Loc{t.Pos, t.End}, Value: t.Val}
	if p.is("<|") || p.is("<<|") {
		exported := p.tok().Val == "<<|"
		p.advance()
		c := &Collector{Type: tr, Exported: exported}
		closeTok := "|>"
		if exported {
			closeTok = "|>>"
		}
		if !p.is(closeTok) {
			c.Query = p.expr(2, true)
		}
		c.End = p.expect(closeTok).End
		c.Pos = t.Pos
		if resources && p.is("{") {
			p.advance()
			c.Attrs = p.attrs()
			c.HasAttrs = true
			c.End = p.expect("}").End
		}
		return c
	}
	if resources && p.is("{") && !p.overrideBody() {
		// Exec { 'title': ... }: a declaration (Puppet takes a type
		// reference with titled bodies as the type), not defaults.
		ra := &resourceAlloc{r: Resource{Type: strings.ToLower(t.Val), TypeLoc: Loc{t.Pos, t.End}}}
		r := &ra.r
		p.advance()
		r.Bodies = p.resourceBodies(ra)
		r.Pos, r.End = t.Pos, p.expect("}").End
		return r
	}
	if resources && p.is("{") {
		p.advance()
		d := &ResourceDefaults{Type: tr}
		d.Attrs = p.attrs()
		d.Pos, d.End = t.Pos, p.expect("}").End
		return d
	}
	if p.is("(") {
		// Array($x), Sensitive('s'), Deferred('f', [...]): a type's new().
		p.advance()
		c := &Call{Name: t.Val, NameLoc: Loc{t.Pos, t.End}, Parens: true}
		c.Args = p.list(")")
		c.Pos, c.End = t.Pos, p.expect(")").End
		if p.is("|") {
			c.Lambda = p.lambda()
			c.End = c.Lambda.End
		}
		return p.postfix(c, resources)
	}
	x := p.postfix(tr, resources)
	if a, ok := x.(*Access); ok && resources && p.is("{") && a.X == Node(tr) &&
		tr.Value == "Resource" && len(a.Args) == 1 && !p.overrideBody() {
		// Resource['notify'] { 'title': ... } (or Resource[Notify]):
		// a declaration whose type is the key.
		ra := &resourceAlloc{r: Resource{TypeExpr: a.Args[0], TypeLoc: *a.Args[0].Span()}}
		r := &ra.r
		p.advance()
		r.Bodies = p.resourceBodies(ra)
		r.Pos, r.End = t.Pos, p.expect("}").End
		return r
	}
	if a, ok := x.(*Access); ok && resources && p.is("{") && a.X == Node(tr) {
		p.advance()
		o := &ResourceOverride{Ref: a}
		o.Attrs = p.attrs()
		o.Pos, o.End = t.Pos, p.expect("}").End
		return o
	}
	return x
}

func (p *parser) word(resources bool) Node {
	t := p.tok()
	loc := Loc{t.Pos, t.End}
	switch t.Val {
	case "true", "false":
		p.advance()
		return &Bool{Loc: loc, Value: t.Val == "true"}
	case "undef":
		p.advance()
		return &Undef{Loc: loc}
	case "default":
		p.advance()
		return &Default{Loc: loc}
	case "if", "unless":
		return p.ifExpr()
	case "case":
		return p.caseExpr()
	}
	n1 := p.peek(1)
	if resources && n1.Kind == TPunct && n1.Val == "{" {
		return p.resource(t.Pos)
	}
	if n1.Kind == TPunct && n1.Val == "(" {
		p.advance()
		p.advance()
		c := &Call{Name: t.Val, NameLoc: loc, Parens: true}
		c.Args = p.list(")")
		c.Pos, c.End = t.Pos, p.expect(")").End
		if p.is("|") {
			c.Lambda = p.lambda()
			c.End = c.Lambda.End
		} else if p.tasks && t.Val == "apply" && p.is("{") {
			// Puppet's tasks mode (a plan): `apply(targets) { catalog code }`,
			// kept as the call's parameterless lambda.
			open := p.tok().Pos
			body, bl := p.block()
			c.Lambda = &Lambda{Loc: Loc{open, bl.End}, Body: body}
			c.End = bl.End
		}
		return c
	}
	if keywords[t.Val] && t.Val != "type" && t.Val != "function" && t.Val != "node" {
		p.fail("")
	}
	p.advance()
	return &Name{Loc: loc, Value: t.Val}
}

func (p *parser) resource(start int) Node {
	t := p.advance() // type name
	ra := &resourceAlloc{r: Resource{Type: strings.ToLower(t.Val), TypeLoc: Loc{t.Pos, t.End}}}
	r := &ra.r
	p.expect("{")
	r.Bodies = p.resourceBodies(ra)
	r.Pos, r.End = start, p.expect("}").End
	return r
}

// resourceBodies parses `title: attrs; title: attrs` up to the closing
// brace (not consumed); the first body is ra's.
func (p *parser) resourceBodies(ra *resourceAlloc) []*ResourceBody {
	var out []*ResourceBody
	for !p.is("}") {
		title := p.expr(2, true)
		p.expect(":")
		var b *ResourceBody
		if out == nil {
			b, out = &ra.body, ra.bodies[:0]
		} else {
			b = new(ResourceBody)
		}
		b.Title = title
		b.Attrs = p.attrs()
		b.Pos = title.Span().Pos
		b.End = p.prev().End
		out = append(out, b)
		if !p.accept(";") {
			break
		}
	}
	return out
}

// overrideBody: after a reference, the `{` opens attributes (`name =>`,
// `* =>`, or nothing): an override, not titled bodies.
func (p *parser) overrideBody() bool {
	n1, n2 := p.peek(1), p.peek(2)
	switch {
	case n1.Kind == TPunct && n1.Val == "}":
		return true
	case n1.Kind == TName || (n1.Kind == TPunct && n1.Val == "*"):
		return n2.Kind == TPunct && (n2.Val == "=>" || n2.Val == "+>")
	}
	return false
}

// attrs parses `name => value, ...` up to '}' or ';' (not consumed).
func (p *parser) attrs() []*Attr {
	ls := p.ls
	base := len(ls.attrs)
	p.accept(",") // `title:,` is accepted by Puppet
	for {
		t := p.tok()
		if t.Kind == TPunct && (t.Val == "}" || t.Val == ";") {
			return ls.popAttrs(base)
		}
		var name string
		switch {
		case t.Kind == TName:
			name = t.Val
		case t.Kind == TPunct && t.Val == "*":
			name = "*"
		default:
			p.fail("expected an attribute name")
		}
		p.advance()
		op := p.tok()
		if !(op.Kind == TPunct && (op.Val == "=>" || op.Val == "+>")) {
			p.fail("expected '=>'")
		}
		p.advance()
		v := p.expr(2, true)
		a := &Attr{Name: name, NameLoc: Loc{t.Pos, t.End}, Op: op.Val, Value: v}
		a.Pos, a.End = t.Pos, v.Span().End
		ls.attrs = append(ls.attrs, a)
		if !p.accept(",") {
			t := p.tok()
			if !(t.Kind == TPunct && (t.Val == "}" || t.Val == ";")) {
				p.fail("expected ',' or '}'")
			}
			return ls.popAttrs(base)
		}
	}
}

func (p *parser) lambda() *Lambda {
	open := p.expect("|")
	l := &Lambda{}
	for !p.is("|") {
		l.Params = append(l.Params, p.param())
		if !p.accept(",") {
			break
		}
	}
	p.expect("|")
	body, loc := p.block()
	l.Body = body
	l.Pos, l.End = open.Pos, loc.End
	return l
}

func (p *parser) param() *Param {
	t := p.tok()
	pr := &Param{}
	pr.Pos = t.Pos
	if t.Kind == TTypeName {
		pr.Type = p.postfix(&TypeRef{Loc: Loc{t.Pos, t.End}, Value: p.advance().Val}, false)
	}
	if p.accept("*") {
		pr.Splat = true
	}
	v := p.tok()
	if v.Kind != TVar {
		p.fail("expected a parameter name")
	}
	p.advance()
	pr.Name, pr.NameLoc, pr.End = v.Val, Loc{v.Pos, v.End}, v.End
	if p.accept("=") {
		pr.Default = p.expr(2, true)
		pr.End = pr.Default.Span().End
	}
	return pr
}

func (p *parser) params() []*Param {
	if !p.accept("(") {
		return nil
	}
	var out []*Param
	for !p.is(")") {
		out = append(out, p.param())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return out
}

func (p *parser) ifExpr() Node {
	t := p.advance() // if, unless or elsif
	n := &If{Unless: t.Val == "unless"}
	n.Pos = t.Pos
	n.Cond = p.expr(0, false)
	n.Then, _ = p.block()
	n.End = p.prev().End
	if p.isWord("elsif") && !n.Unless {
		e := p.ifExpr() // an elsif is a nested if (ifExpr accepts either word)
		n.Else = []Node{e}
		n.HasElse = true
		n.End = e.Span().End
	} else if p.isWord("else") {
		p.advance()
		n.Else, _ = p.block()
		n.HasElse = true
		n.End = p.prev().End
	}
	return n
}

func (p *parser) caseExpr() Node {
	t := p.advance()
	c := &Case{}
	c.Pos = t.Pos
	c.X = p.expr(0, false)
	p.expect("{")
	for !p.is("}") {
		var o CaseOption
		o.Loc.Pos = p.tok().Pos
		for {
			o.Values = append(o.Values, p.expr(2, false))
			if !p.accept(",") {
				break
			}
		}
		p.expect(":")
		o.Body, _ = p.block()
		o.Loc.End = p.prev().End
		c.Options = append(c.Options, o)
	}
	c.End = p.expect("}").End
	return c
}

func (p *parser) classDef() Node {
	kw := p.advance()
	nt := p.advance()
	c := &ClassDef{Name: strings.TrimPrefix(nt.Val, "::"), NameLoc: Loc{nt.Pos, nt.End}}
	c.Pos = kw.Pos
	c.Params = p.params()
	if p.isWord("inherits") {
		p.advance()
		pt := p.tok()
		if pt.Kind != TName && !(pt.Kind == TName && pt.Val == "default") {
			p.fail("expected a class name")
		}
		p.advance()
		c.Parent, c.ParentLoc = strings.TrimPrefix(pt.Val, "::"), Loc{pt.Pos, pt.End}
	}
	var loc Loc
	c.Body, loc = p.block()
	c.End = loc.End
	return c
}

func (p *parser) defineDef() Node {
	kw := p.advance()
	nt := p.advance()
	d := &DefineDef{Name: strings.TrimPrefix(nt.Val, "::"), NameLoc: Loc{nt.Pos, nt.End}}
	d.Pos = kw.Pos
	d.Params = p.params()
	var loc Loc
	d.Body, loc = p.block()
	d.End = loc.End
	return d
}

func (p *parser) nodeDef() Node {
	kw := p.advance()
	n := &NodeDef{}
	n.Pos = kw.Pos
	for {
		t := p.tok()
		switch {
		case t.Kind == TString || t.Kind == TIString:
			n.Matches = append(n.Matches, p.primary(false))
		case t.Kind == TRegex:
			n.Matches = append(n.Matches, p.primary(false))
		case t.Kind == TName && t.Val == "default":
			p.advance()
			n.Matches = append(n.Matches, &Default{Loc: Loc{t.Pos, t.End}})
		case t.Kind == TName || t.Kind == TNumber:
			// unquoted host name: words joined by dots
			start, end := t.Pos, t.End
			p.advance()
			for p.is(".") && (p.peek(1).Kind == TName || p.peek(1).Kind == TNumber) {
				p.advance()
				end = p.advance().End
			}
			n.Matches = append(n.Matches, &Str{Loc: Loc{start, end}, Value: string(p.src[start:end])})
		default:
			p.fail("expected a node name")
		}
		if !p.accept(",") {
			break
		}
	}
	if p.isWord("inherits") {
		p.advance()
		n.Parent = p.primary(false)
	}
	var loc Loc
	n.Body, loc = p.block()
	n.End = loc.End
	return n
}

func (p *parser) functionDef() Node {
	kw := p.advance()
	nt := p.advance()
	f := &FunctionDef{Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
	f.Pos = kw.Pos
	f.Params = p.params()
	if p.accept(">>") {
		f.Return = p.expr(11, false)
	}
	var loc Loc
	f.Body, loc = p.block()
	f.End = loc.End
	return f
}

func (p *parser) typeAlias() Node {
	kw := p.advance()
	nt := p.advance()
	a := &TypeAlias{Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
	a.Pos = kw.Pos
	p.expect("=")
	a.Value = p.expr(2, false)
	a.End = a.Value.Span().End
	return a
}

func (p *parser) plan() Node {
	kw := p.advance()
	nt := p.advance()
	b := &Block{Keyword: kw.Val, Name: nt.Val, NameLoc: Loc{nt.Pos, nt.End}}
	b.Pos = kw.Pos
	b.Params = p.params()
	var loc Loc
	tasks := p.tasks
	p.tasks = true
	b.Body, loc = p.block()
	p.tasks = tasks
	b.End = loc.End
	return b
}

// parseTokens parses toks (ending in TEOF) as a statement list. On a
// syntax error it returns the statements before it and the error.
//
// This is the hand-written recursive-descent parser the analysis used
// before the participle grammar: kept, in the tests only, as the oracle
// of the differential tests (grammar_diff_test.go) and the reference of
// BenchmarkReparseEditHand.
func parseTokens(src []byte, toks []Token, follow *Token) (stmts []Node, err *Error) {
	n := len(toks) - 1
	p := &parser{src: src, toks: toks, n: n, eof: chunkEOF(toks), follow: follow, ls: getListStack()}
	defer putListStack(p.ls)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			err = p.err
		}
	}()
	for {
		for p.accept(";") {
		}
		if p.tok().Kind == TEOF {
			return stmts, nil
		}
		if p.is("}") {
			p.fail("")
		}
		stmts = append(stmts, p.statement())
	}
}

// listStack holds the elements of the lists being parsed (statements,
// arguments and elements, attributes), nested lists above the lists they
// are in, so that a list is allocated once at its length when it ends
// instead of once per doubling while it grows. One per chunk parse,
// recycled.
type listStack struct {
	nodes []Node
	attrs []*Attr
}

var listStacks = sync.Pool{New: func() any { return new(listStack) }}

func getListStack() *listStack { return listStacks.Get().(*listStack) }

// putListStack recycles ls, emptied: a syntax error unwinds the parse
// without popping what it had pushed, and what is left must not keep a
// tree alive. One that a huge list grew is left to the collector.
func putListStack(ls *listStack) {
	if cap(ls.nodes) > 1<<14 || cap(ls.attrs) > 1<<14 {
		return
	}
	clear(ls.nodes)
	clear(ls.attrs)
	ls.nodes, ls.attrs = ls.nodes[:0], ls.attrs[:0]
	listStacks.Put(ls)
}

// popNodes returns the nodes pushed since base as a list of their own
// (nil when there are none, as an append loop leaves it).
func (ls *listStack) popNodes(base int) []Node {
	s := ls.nodes[base:]
	if len(s) == 0 {
		return nil
	}
	out := make([]Node, len(s))
	copy(out, s)
	clear(s)
	ls.nodes = ls.nodes[:base]
	return out
}

// popAttrs is popNodes for attributes.
func (ls *listStack) popAttrs(base int) []*Attr {
	s := ls.attrs[base:]
	if len(s) == 0 {
		return nil
	}
	out := make([]*Attr, len(s))
	copy(out, s)
	clear(s)
	ls.attrs = ls.attrs[:base]
	return out
}
