package cfengine

import "github.com/alecthomas/participle/v2/lexer"

// A hand-written recursive-descent reader for the grammar in grammar.go.
// Participle stays the grammar's definition and the only source of
// syntax error messages: fastParse fills the very structs participle
// fills and gives up (returns nil) at the first token the grammar does
// not allow, and parseBlock then asks participle, which reports the error
// in cf-promises' words. On valid input the two agree (fast_test.go checks
// it on every test file, the corpus and under fuzzing); fastParse is
// about 20 times faster and allocates far less, which is what makes a
// cold masterfiles analysis affordable in an editor.
//
// Every alternative of the grammar is decided by one token (two for a
// call: a name followed by '('), so no backtracking is needed.

type fastParser struct {
	text []byte
	toks []tok
	i    int
	// depth bounds recursion (the lexer already bounds nesting; this is a
	// second guard).
	depth int
}

func fastParse(text []byte, toks []tok) *gBlock {
	p := &fastParser{text: text, toks: toks}
	g := p.block()
	if g == nil || p.i != len(p.toks) {
		return nil
	}
	return g
}

func (p *fastParser) peek() (tok, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return tok{}, false
}

// is reports whether the next token is the punctuation or arrow s.
func (p *fastParser) is(s string) bool {
	t, ok := p.peek()
	return ok && t.end-t.start == len(s) && string(p.text[t.start:t.end]) == s
}

func (p *fastParser) isAt(k int, s string) bool {
	if k >= len(p.toks) {
		return false
	}
	t := p.toks[k]
	return t.end-t.start == len(s) && string(p.text[t.start:t.end]) == s
}

func (p *fastParser) typeIs(typ lexer.TokenType) bool {
	t, ok := p.peek()
	return ok && t.typ == typ
}

func (p *fastParser) take() lexer.Token {
	t := p.toks[p.i]
	p.i++
	return lexer.Token{Type: t.typ, Value: string(p.text[t.start:t.end]), Pos: lexer.Position{Offset: t.start, Line: 1, Column: 1}}
}

func (p *fastParser) block() *gBlock {
	g := &gBlock{}
	if !p.typeIs(tKeyword) {
		return nil
	}
	g.Kind = p.take()
	if !p.typeIs(tIdent) {
		return nil
	}
	g.Type = p.take()
	if !p.typeIs(tIdent) {
		return nil
	}
	g.Name = p.take()
	if p.is("(") {
		p.i++
		g.Params = &gParams{}
		if p.typeIs(tIdent) {
			g.Params.Names = append(g.Params.Names, &gName{Tok: p.take()})
			for p.is(",") && p.i+1 < len(p.toks) && p.toks[p.i+1].typ == tIdent {
				p.i++
				g.Params.Names = append(g.Params.Names, &gName{Tok: p.take()})
			}
			if p.is(",") {
				p.i++
			}
		}
		if !p.is(")") {
			return nil
		}
		p.i++
	}
	if !p.is("{") {
		return nil
	}
	g.Open = p.take()
	for {
		t, ok := p.peek()
		if !ok {
			return nil
		}
		it := &gItem{}
		switch t.typ {
		case tPromiseGuard:
			it.Guard = p.take()
		case tClassGuard:
			it.Class = p.take()
		case tVarClass:
			it.VarClass = p.take()
		case tString:
			it.Promise = p.promise()
			if it.Promise == nil {
				return nil
			}
		case tIdent:
			it.Attr = p.attr()
			if it.Attr == nil {
				return nil
			}
		default:
			if !p.is("}") {
				return nil
			}
			g.Close = p.take()
			return g
		}
		g.Items = append(g.Items, it)
	}
}

func (p *fastParser) promise() *gPromise {
	g := &gPromise{Promiser: p.take()}
	if p.is("->") {
		p.i++
		g.Promisee = p.rval()
		if g.Promisee == nil {
			return nil
		}
	}
	if p.typeIs(tIdent) {
		c := p.cons()
		if c == nil {
			return nil
		}
		g.Cons = append(g.Cons, c)
		for p.is(",") {
			p.i++
			if !p.typeIs(tIdent) {
				return nil
			}
			c := p.cons()
			if c == nil {
				return nil
			}
			g.Cons = append(g.Cons, c)
		}
	}
	if !p.is(";") {
		return nil
	}
	g.End = p.take()
	return g
}

func (p *fastParser) cons() *gCons {
	lval := p.take()
	if !p.is("=>") {
		return nil
	}
	p.i++
	r := p.rval()
	if r == nil {
		return nil
	}
	return &gCons{Lval: lval, Rval: r}
}

func (p *fastParser) attr() *gAttr {
	lval := p.take()
	if !p.is("=>") {
		return nil
	}
	p.i++
	r := p.rval()
	if r == nil || !p.is(";") {
		return nil
	}
	return &gAttr{Lval: lval, Rval: r, End: p.take()}
}

func (p *fastParser) isScalar() bool {
	t, ok := p.peek()
	return ok && (t.typ == tString || t.typ == tNakedVar || t.typ == tIdent)
}

func (p *fastParser) isCall() bool {
	t, ok := p.peek()
	return ok && (t.typ == tIdent || t.typ == tNakedVar) && p.isAt(p.i+1, "(")
}

func (p *fastParser) rval() *gRval {
	switch {
	case p.isCall():
		c := p.call()
		if c == nil {
			return nil
		}
		return &gRval{Call: c}
	case p.is("{"):
		l := &gList{Open: p.take()}
		if !p.args(&l.Items) || !p.is("}") {
			return nil
		}
		l.Close = p.take()
		return &gRval{List: l}
	case p.isScalar():
		return &gRval{Scalar: p.take()}
	}
	return nil
}

// args reads `( arg ( ',' arg )* ','? )?`.
func (p *fastParser) args(items *[]*gArg) bool {
	if !p.isCall() && !p.isScalar() {
		return true
	}
	a := p.arg()
	if a == nil {
		return false
	}
	*items = append(*items, a)
	for p.is(",") {
		if p.i+1 < len(p.toks) {
			p.i++
			if !p.isCall() && !p.isScalar() {
				// trailing comma
				return true
			}
			a := p.arg()
			if a == nil {
				return false
			}
			*items = append(*items, a)
			continue
		}
		p.i++
		return true
	}
	return true
}

func (p *fastParser) arg() *gArg {
	if p.isCall() {
		c := p.call()
		if c == nil {
			return nil
		}
		return &gArg{Call: c}
	}
	return &gArg{Scalar: p.take()}
}

func (p *fastParser) call() *gCall {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil
	}
	g := &gCall{Name: p.take()}
	p.i++ // '('
	if !p.args(&g.Args) || !p.is(")") {
		return nil
	}
	g.Close = p.take()
	return g
}
