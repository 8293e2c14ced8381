package cfengine

import (
	"io"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar of one top-level block, after cf3parse.y. It is
// private: Parse converts it into the Block tree with byte spans.

type gBlock struct {
	Kind   lexer.Token `parser:"@Keyword"`
	Type   lexer.Token `parser:"@Ident"`
	Name   lexer.Token `parser:"@Ident"`
	Params *gParams    `parser:"@@?"`
	Open   lexer.Token `parser:"@'{'"`
	Items  []*gItem    `parser:"@@*"`
	Close  lexer.Token `parser:"@'}'"`
}

type gParams struct {
	Names []*gName `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
}

type gName struct {
	Tok lexer.Token `parser:"@Ident"`
}

type gItem struct {
	Guard    lexer.Token `parser:"  @PromiseGuard"`
	Class    lexer.Token `parser:"| @ClassGuard"`
	VarClass lexer.Token `parser:"| @VarClass"`
	Promise  *gPromise   `parser:"| @@"`
	Attr     *gAttr      `parser:"| @@"`
}

type gPromise struct {
	Promiser lexer.Token `parser:"@String"`
	Promisee *gRval      `parser:"( '->' @@ )?"`
	Cons     []*gCons    `parser:"( @@ ( ',' @@ )* )?"`
	End      lexer.Token `parser:"@';'"`
}

type gCons struct {
	Lval lexer.Token `parser:"@Ident '=>'"`
	Rval *gRval      `parser:"@@"`
}

type gAttr struct {
	Lval lexer.Token `parser:"@Ident '=>'"`
	Rval *gRval      `parser:"@@"`
	End  lexer.Token `parser:"@';'"`
}

// A quoted string is never a call: it is tried first (most values are
// strings), so most values cost one alternative.
type gRval struct {
	String lexer.Token `parser:"  @String"`
	Call   *gCall      `parser:"| @@"`
	List   *gList      `parser:"| @@"`
	Scalar lexer.Token `parser:"| @( NakedVar | Ident )"`
}

type gArg struct {
	String lexer.Token `parser:"  @String"`
	Call   *gCall      `parser:"| @@"`
	Scalar lexer.Token `parser:"| @( NakedVar | Ident )"`
}

type gCall struct {
	Name  lexer.Token `parser:"@( Ident | NakedVar ) '('"`
	Args  []*gArg     `parser:"( @@ ( ',' @@ )* ','? )?"`
	Close lexer.Token `parser:"@')'"`
}

type gList struct {
	Open  lexer.Token `parser:"@'{'"`
	Items []*gArg     `parser:"( @@ ( ',' @@ )* ','? )?"`
	Close lexer.Token `parser:"@'}'"`
}

// definition adapts lexDef to lexer.Definition (Lex is never used: chunks
// are fed with ParseFromLexer).
type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType { return symbols() }
func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	return &tokenStream{}, nil
}

// Built on first use: a program that never reads this language does not
// pay for building the grammar at start.
var blockParser = sync.OnceValue(func() *participle.Parser[gBlock] {
	return participle.MustBuild[gBlock](
		participle.Lexer(definition{}),
		participle.UseLookahead(2))
})

var promiseParser = sync.OnceValue(func() *participle.Parser[gPromise] {
	return participle.MustBuild[gPromise](
		participle.Lexer(definition{}),
		participle.UseLookahead(2))
})

var consParser = sync.OnceValue(func() *participle.Parser[gCons] {
	return participle.MustBuild[gCons](
		participle.Lexer(definition{}),
		participle.UseLookahead(2))
})

var attrParser = sync.OnceValue(func() *participle.Parser[gAttr] {
	return participle.MustBuild[gAttr](
		participle.Lexer(definition{}),
		participle.UseLookahead(2))
})
