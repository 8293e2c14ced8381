package puppet

import (
	"io"
	"sync"

	"github.com/alecthomas/participle/v2"
	plex "github.com/alecthomas/participle/v2/lexer"
)

// The Puppet 7 manifest language as a participle grammar, after the
// language reference and Puppet's egrammar.ra. It runs over the tokens
// of the hand-written lexer (lexer.go), adapted by tokenSource; convert.go
// turns what it reads into the syntax tree (ast.go).
//
// Three things in Puppet's grammar depend on more than the next token;
// the lexer decides them, as Puppet's own lexer does:
//   - `[` right after a value is an access (`$a[0]`, `File['x']`), after
//     blank space it starts an array (Puppet's LBRACK vs LISTSTART):
//     '[':Post vs '[':Punct.
//   - a statement function (`include`, `notice`, ...) not followed by `(`
//     takes arguments without parentheses unless a bare word starts the
//     next line: StmtCall (with arguments) vs StmtWord (alone).
//   - in an `if`/`unless`/`case` head, `name {` is no resource: the head
//     is read by the C* productions, which have no resource forms.
//
// Binary operators are read flat (operand, operator, operand, ...) and
// given their precedence in convert.go, with the table from the language
// reference; the productions differ only in which operators they accept.

// Token types of the adapted lexer.
const (
	gEOF  plex.TokenType = plex.EOF
	gName plex.TokenType = iota + 1
	gTypeName
	gVar
	gString // a string, interpolated or not, or a regex
	gNumber
	gLitWord // true, false, undef, default
	gIllegal
	gPunct
	gPost // what starts a postfix operator: '.', '?', and '[' touching a value (an access)
	gStmtCall
	gStmtWord
	gKeyword   // a reserved word: if, case, class, and, ...
	gNameBrace // a word before '{': a resource's type where resources may be
	gVarBrace  // a variable before '{'
	gDefStart  // class, define, function, node, type or plan starting a definition
	gApply     // apply(...) { } in a plan (Puppet's tasks mode)
	gtStmtOp   // the operators of statements only: -> ~> <- <~ = += -=
	gtBinOp    // every other binary operator: or, and, in, comparisons, arithmetic, matches, shifts
)

func puppetSymbols() map[string]plex.TokenType {
	return map[string]plex.TokenType{
		"EOF": gEOF, "Name": gName, "TypeName": gTypeName, "Var": gVar, "String": gString,
		"Number": gNumber, "LitWord": gLitWord, "Illegal": gIllegal,
		"Punct": gPunct, "Post": gPost, "StmtCall": gStmtCall, "StmtWord": gStmtWord,
		"Keyword": gKeyword, "NameBrace": gNameBrace, "VarBrace": gVarBrace, "DefStart": gDefStart, "Apply": gApply,
		"StmtOp": gtStmtOp, "BinOp": gtBinOp,
	}
}

// ---- statements ----

// gStatements: a statement is looked for only before a token that can
// start one (every block ends on '}', every chunk on EOF, and a failed
// statement would try every production of an expression first).
type gStatements struct {
	Stmts []*gStatement `parser:"';'* ( (?! '}' | EOF ) @@ ';'* )*"`
}

type gBlock struct {
	Open  plex.Token  `parser:"@'{'"`
	Body  gStatements `parser:"@@"`
	Close plex.Token  `parser:"@'}'"`
}

// gStatement: a statement that starts like a definition is one (Puppet
// decides on the first two tokens), and so is a statement function.
// Expressions, the most frequent, are tried first.
type gStatement struct {
	Expr     *gExpr        `parser:"  (?! StmtCall | StmtWord | DefStart ) @@"`
	More     []*gMoreExpr  `parser:"@@*"`
	Call     *gStmtCallX   `parser:"| @@"`
	Class    *gClassDef    `parser:"| @@"`
	Define   *gDefineDef   `parser:"| @@"`
	Node     *gNodeDef     `parser:"| @@"`
	Function *gFunctionDef `parser:"| @@"`
	Alias    *gTypeAlias   `parser:"| @@"`
	Plan     *gPlan        `parser:"| @@"`
}

// gMoreExpr: Puppet's grammar reads `e1, e2` as a statement
// (syntactic_statement COMMA assignment) for a statement function's
// arguments without parentheses; any other such list is its error
// (statement's convert), and `e1, }` a syntax error at the '}'.
type gMoreExpr struct {
	Comma plex.Token `parser:"@','"`
	Expr  *gExpr     `parser:"@@?"` // (missing: the syntax error is at what follows the comma)
}

type gClassDef struct {
	Kw     plex.Token `parser:"@'class':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' )"`
	Params *gParams   `parser:"@@?"`
	Parent plex.Token `parser:"( 'inherits' @( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' ) )?"`
	Body   *gBlock    `parser:"@@"`
}

type gDefineDef struct {
	Kw     plex.Token `parser:"@'define':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' )"`
	Params *gParams   `parser:"@@?"`
	Body   *gBlock    `parser:"@@"`
}

type gNodeDef struct {
	Kw      plex.Token    `parser:"@'node':DefStart"`
	Matches []*gNodeMatch `parser:"@@ ( ',' @@ )* ','?"`
	Parent  *gPrimary     `parser:"( 'inherits' @@ )?"`
	Body    *gBlock       `parser:"@@"`
}

// gNodeMatch is a node name: a string, a regex, default, or a host name
// written without quotes (words and numbers joined by dots).
type gNodeMatch struct {
	Tokens  []plex.Token
	Str     plex.Token `parser:"  @String"`
	Default plex.Token `parser:"| @'default'"`
	Host    bool       `parser:"| (?! 'inherits' ) @( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' | Number ) ( '.' ( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' | Number ) )*"`
}

type gFunctionDef struct {
	Kw     plex.Token `parser:"@'function':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' )"`
	Params *gParams   `parser:"@@?"`
	Return *gCOperand `parser:"( '>>' @@ )?"`
	Body   *gBlock    `parser:"@@"`
}

type gTypeAlias struct {
	Kw    plex.Token `parser:"@'type':DefStart"`
	Name  plex.Token `parser:"@TypeName '='"`
	Value *gCExpr2   `parser:"@@"`
}

type gPlan struct {
	Kw     plex.Token `parser:"@'plan':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' )"`
	Params *gParams   `parser:"@@?"`
	Body   *gBlock    `parser:"@@"`
}

// gStmtCallX is `include a, b` (parentheses optional for these).
type gStmtCallX struct {
	Name plex.Token `parser:"  @StmtCall"`
	Args []*gExpr3  `parser:"  @@ ( ',' @@ )*"`
	Word plex.Token `parser:"| @StmtWord"`
}

type gParams struct {
	List []*gParam `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
}

type gParam struct {
	Type    *gTypeExpr `parser:"@@?"`
	Splat   bool       `parser:"@'*'?"`
	Name    plex.Token `parser:"@Var"`
	Default *gExpr2    `parser:"( '=' @@ )?"`
}

// gTypeExpr is a parameter's type: `String`, `Optional[Integer]`.
type gTypeExpr struct {
	Name plex.Token `parser:"@TypeName"`
	Ops  []*gPostOp `parser:"( (?= Post) @@ )*"`
}

// ---- expressions ----

// gExpr is an expression statement or a parenthesised expression: every
// operator, resources allowed. The operators and the operands after them
// are read into two lists, not into a struct per operator: participle
// allocates the struct of a production before it knows whether it
// matches, and an operator is tried (and missed) after every operand.
// Ops holds the operators' text only (participle sets, not appends, a
// token list): each is the token before its right operand. The first
// operand is read in place (Primary, Post: an operand's fields), which
// saves a nested production for the many expressions of one operand.
type gExpr struct {
	Primary gRPrimary   `parser:"@@"`
	Post    []*gPostOp  `parser:"( (?= Post) @@ )*"`
	Ops     []string    `parser:"( @( BinOp | StmtOp )"`
	Rights  []*gOperand `parser:"  @@ )*"`
}

// gExpr2 is a value in a list, a hash, an attribute, a title: no arrows,
// no assignment.
type gExpr2 struct {
	Primary gRPrimary   `parser:"@@"`
	Post    []*gPostOp  `parser:"( (?= Post) @@ )*"`
	Ops     []string    `parser:"( @BinOp"`
	Rights  []*gOperand `parser:"  @@ )*"`
}

// gExpr3 is an argument of a statement function: no `or` either.
type gExpr3 struct {
	Primary gRPrimary   `parser:"@@"`
	Post    []*gPostOp  `parser:"( (?= Post) @@ )*"`
	Ops     []string    `parser:"( (?! 'or') @BinOp"`
	Rights  []*gOperand `parser:"  @@ )*"`
}

// gCExpr is the head of an if, unless or case: no resources.
type gCExpr struct {
	Primary gPrimary     `parser:"@@"`
	Post    []*gPostOp   `parser:"( (?= Post) @@ )*"`
	Ops     []string     `parser:"( @( BinOp | StmtOp )"`
	Rights  []*gCOperand `parser:"  @@ )*"`
}

// gCExpr2 is a case option's value or a type alias: no resources, no
// arrows, no assignment.
type gCExpr2 struct {
	Primary gPrimary     `parser:"@@"`
	Post    []*gPostOp   `parser:"( (?= Post) @@ )*"`
	Ops     []string     `parser:"( @BinOp"`
	Rights  []*gCOperand `parser:"  @@ )*"`
}

// gOperand is a unary expression where resources may be declared: one
// of the forms with a block (a resource, resource defaults, an override,
// a collector's override) or a plain value. A postfix operator is looked
// for only before a Post token: most operands have none, and the
// lookahead costs less than the gPostOp participle would allocate to
// find out.
type gOperand struct {
	Primary gRPrimary  `parser:"@@"`
	Ops     []*gPostOp `parser:"( (?= Post) @@ )*"`
}

// gRPrimary is gPrimary where resources may be declared: a word or a
// variable before '{' declares one, a capitalised name may take a block
// (a collector and its override, resource defaults `File { attrs }`, a
// type's new() `Integer($x)`, an override `File['x'] { attrs }` or
// `Resource['file'] { title: attrs }`).
//
// participle tries alternatives in order, each at the cost of an
// allocation, and allocates a struct for every nested production it
// tries. So each alternative starts with one token type, outside any
// nested struct (the adapted lexer's types are cut for that: String,
// LitWord, Post), and they come in the order of how often they occur;
// the rare forms of a name (a statement function's or a definition
// keyword's) come last.
type gRPrimary struct {
	Str       *plex.Token   `parser:"  @String"`
	Var       *plex.Token   `parser:"| @Var"`
	Name      *plex.Token   `parser:"| @Name"`
	Args      *gArgs        `parser:"  ( @@"`
	Lambda    *gLambda      `parser:"    @@? )?"`
	Type      *plex.Token   `parser:"| @TypeName"`
	AccList   *gList        `parser:"  ( '[':Post @@"`
	AccClose  *plex.Token   `parser:"    @']'"`
	AccBody   *gBody        `parser:"    @@?"`
	Defaults  *gBody        `parser:"  | @@"`
	New       *gArgs        `parser:"  | @@"`
	NewLambda *gLambda      `parser:"    @@?"`
	CollOpen  *plex.Token   `parser:"  | @( '<|' | '<<|' )"`
	CollQuery *gExpr2       `parser:"    @@?"`
	CollClose *plex.Token   `parser:"    @( '|>' | '|>>' )"`
	CollBody  *gBody        `parser:"    @@? )?"`
	Word      *plex.Token   `parser:"| @LitWord"`
	ResType   *plex.Token   `parser:"| @NameBrace"`
	ResBody   *gBody        `parser:"  @@"`
	Number    *plex.Token   `parser:"| @Number"`
	HashOpen  *plex.Token   `parser:"| @'{'"`
	Entries   []*gHashEntry `parser:"  ( @@ ( ',' (?! '}' ) @@ )* ','? )?"`
	HashEnd   *plex.Token   `parser:"  @'}'"`
	ArrOpen   *plex.Token   `parser:"| @'[':Punct"`
	ArrList   *gAList       `parser:"  @@"`
	ArrClose  *plex.Token   `parser:"  @']'"`
	IfKw      *plex.Token   `parser:"| @( 'if' | 'unless' )"`
	If        *gIfTail      `parser:"  @@"`
	CaseKw    *plex.Token   `parser:"| @'case'"`
	Case      *gCaseTail    `parser:"  @@"`
	ParOpen   *plex.Token   `parser:"| @'('"`
	ParX      *gExpr        `parser:"  @@"`
	ParClose  *plex.Token   `parser:"  @')'"`
	VarType   *plex.Token   `parser:"| @VarBrace"`
	VarBody   *gBody        `parser:"  @@"`
	At        *plex.Token   `parser:"| @( '@' | '@@' )"`
	AtType    *plex.Token   `parser:"  @NameBrace"`
	AtBody    *gBody        `parser:"  @@"`
	KwCall    *plex.Token   `parser:"| @( Keyword | 'and' | 'or' | 'in' )"`
	KwArgs    *gArgs        `parser:"  @@"`
	KwLambda  *gLambda      `parser:"  @@?"`
	Sign      *plex.Token   `parser:"| @( '-' | '!' | '*' )"`
	Signed    *gOperand     `parser:"  @@"`
	Word2     *plex.Token   `parser:"| @( StmtCall | StmtWord | DefStart )"`
	Args2     *gArgs        `parser:"  ( @@"`
	Lambda2   *gLambda      `parser:"    @@? )?"`
	Apply     *plex.Token   `parser:"| @Apply"`
	ApplyArgs *gArgs        `parser:"  @@"`
	ApplyBody *gBlock       `parser:"  @@"`
	Illegal   *plex.Token   `parser:"| @Illegal"`
}

type gCOperand struct {
	Primary gPrimary   `parser:"@@"`
	Ops     []*gPostOp `parser:"( (?= Post) @@ )*"`
}

// gBody is the block of a resource (titles and attributes), of
// defaults or an override (attributes). Bad takes any other value, so
// that a block that holds neither is an error where it goes wrong, not
// a hash read after the name (Puppet commits to the block at its brace).
//
// A resource's bodies are tried first, as they are the most frequent;
// after an attribute's comma the next one is looked for only before
// something other than '}' (the trailing comma most blocks have).
type gBody struct {
	Open   plex.Token  `parser:"@'{'"`
	Bodies []*gResBody `parser:"(   @@ ( ';' @@ )* ';'?"`
	Attrs  []*gAttr    `parser:"  | ','? @@ ( ',' (?! '}' ) @@ )* ','?"`
	Bad    *gExpr2     `parser:"  | @@ )?"`
	Close  plex.Token  `parser:"@'}'"`
}

type gResBody struct {
	Tokens []plex.Token
	Title  gExpr2     `parser:"@@ ':'"`
	Comma  bool       `parser:"@','?"`
	Attrs  []*gAttr   `parser:"( @@ ( ',' (?! '}' ) @@ )* ','? )?"`
	Tail   plex.Token `parser:"(?= ';' | '}' )"`
}

type gAttr struct {
	Name  plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' | '*' )"`
	Op    plex.Token `parser:"@( '=>' | '+>' )"`
	Value gExpr2     `parser:"@@"`
}

type gPostOp struct {
	AccList  *gList      `parser:"  '[':Post @@"`
	AccClose *plex.Token `parser:"  @']'"`
	Method   *plex.Token `parser:"| '.':Post @( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | LitWord | 'and' | 'or' | 'in' | TypeName )"`
	MArgs    *gArgs      `parser:"  @@?"`
	MLambda  *gLambda    `parser:"  @@?"`
	SelOpen  *plex.Token `parser:"| @'?':Post '{'"`
	Cases    []*gSelCase `parser:"  ( @@ ( ',' (?! '}' ) @@ )* ','? )?"`
	SelClose *plex.Token `parser:"  @'}'"`
}

type gArgs struct {
	Open  plex.Token `parser:"@'('"`
	List  gAList     `parser:"@@"`
	Close plex.Token `parser:"@')'"`
}

type gSelCase struct {
	Match gExpr2 `parser:"@@ '=>'"`
	Value gExpr2 `parser:"@@"`
}

// gList is the inside of an access's [...]: values, and `k => v` pairs
// that together make one hash. Puppet reads these as plain expressions.
type gList struct {
	Elems []*gElem `parser:"( @@ ( ',' @@ )* ','? )?"`
}

type gElem struct {
	X     gExpr2  `parser:"@@"`
	Value *gExpr2 `parser:"( '=>' @@ )?"`
}

// gAList is the inside of an array's [...] or a call's (...), which
// Puppet's grammar reads as assignments: `notice($x = 5)` and
// `[File['a'] -> File['b']]` parse and evaluate there.
type gAList struct {
	Elems []*gAElem `parser:"( @@ ( ',' @@ )* ','? )?"`
}

type gAElem struct {
	X     gExpr  `parser:"@@"`
	Value *gExpr `parser:"( '=>' @@ )?"`
}

type gLambda struct {
	Open   plex.Token `parser:"@'|'"`
	Params []*gParam  `parser:"( @@ ( ',' @@ )* ','? )? '|'"`
	Body   *gBlock    `parser:"@@"`
}

// gPrimary is a value where no resource may be declared (the head of
// an if, unless or case): a word or a variable before '{' is only a
// value there. Alternatives come in the order of how often they occur;
// the words Puppet reserves are Keyword tokens, so a plain name needs no
// look at its spelling.
// gPrimary is a value where no resource may be declared (the head of
// an if, unless or case): a word or a variable before '{' is only a
// value there. Alternatives as in gRPrimary.
type gPrimary struct {
	Str       *plex.Token   `parser:"  @String"`
	Var       *plex.Token   `parser:"| @( Var | VarBrace )"`
	Name      *plex.Token   `parser:"| @( Name | NameBrace )"`
	Args      *gArgs        `parser:"  ( @@"`
	Lambda    *gLambda      `parser:"    @@? )?"`
	Type      *plex.Token   `parser:"| @TypeName"`
	CollOpen  *plex.Token   `parser:"  ( @( '<|' | '<<|' )"`
	CollQuery *gExpr2       `parser:"    @@?"`
	CollClose *plex.Token   `parser:"    @( '|>' | '|>>' )"`
	New       *gArgs        `parser:"  | @@"`
	NewLambda *gLambda      `parser:"    @@? )?"`
	Word      *plex.Token   `parser:"| @LitWord"`
	Number    *plex.Token   `parser:"| @Number"`
	HashOpen  *plex.Token   `parser:"| @'{'"`
	Entries   []*gHashEntry `parser:"  ( @@ ( ',' (?! '}' ) @@ )* ','? )?"`
	HashEnd   *plex.Token   `parser:"  @'}'"`
	ArrOpen   *plex.Token   `parser:"| @'[':Punct"`
	ArrList   *gAList       `parser:"  @@"`
	ArrClose  *plex.Token   `parser:"  @']'"`
	IfKw      *plex.Token   `parser:"| @( 'if' | 'unless' )"`
	If        *gIfTail      `parser:"  @@"`
	CaseKw    *plex.Token   `parser:"| @'case'"`
	Case      *gCaseTail    `parser:"  @@"`
	ParOpen   *plex.Token   `parser:"| @'('"`
	ParX      *gExpr        `parser:"  @@"`
	ParClose  *plex.Token   `parser:"  @')'"`
	KwCall    *plex.Token   `parser:"| @( Keyword | 'and' | 'or' | 'in' )"`
	KwArgs    *gArgs        `parser:"  @@"`
	KwLambda  *gLambda      `parser:"  @@?"`
	Sign      *plex.Token   `parser:"| @( '-' | '!' | '*' )"`
	Signed    *gCOperand    `parser:"  @@"`
	Word2     *plex.Token   `parser:"| @( StmtCall | StmtWord | DefStart )"`
	Args2     *gArgs        `parser:"  ( @@"`
	Lambda2   *gLambda      `parser:"    @@? )?"`
	Apply     *plex.Token   `parser:"| @Apply"`
	ApplyArgs *gArgs        `parser:"  @@"`
	ApplyBody *gBlock       `parser:"  @@"`
	Illegal   *plex.Token   `parser:"| @Illegal"`
}

type gIfTail struct {
	Cond *gCExpr `parser:"@@"`
	Then *gBlock `parser:"@@"`
	Elif *gElsif `parser:"( @@"`
	Else *gBlock `parser:"| 'else' @@ )?"`
}

type gElsif struct {
	Kw   plex.Token `parser:"@'elsif'"`
	Cond *gCExpr    `parser:"@@"`
	Then *gBlock    `parser:"@@"`
	Elif *gElsif    `parser:"( @@"`
	Else *gBlock    `parser:"| 'else' @@ )?"`
}

type gCaseTail struct {
	X       *gCExpr        `parser:"@@ '{'"`
	Options []*gCaseOption `parser:"@@*"`
	Close   plex.Token     `parser:"@'}'"`
}

type gCaseOption struct {
	Values []*gCExpr2 `parser:"@@ ( ',' @@ )* ':'"`
	Body   *gBlock    `parser:"@@"`
}

// gHashEntry is a hash's pair: assignments on both sides, as in Puppet.
type gHashEntry struct {
	Key   gExpr `parser:"@@ '=>'"`
	Value gExpr `parser:"@@"`
}

// gInterpolation is the expression inside "${...}".
type gInterpolation struct {
	X gExpr `parser:"@@"`
}

// puppetDefinition adapts the lexer to plex.Definition (Lex is never
// used: chunks are fed with ParseFromLexer).
type puppetDefinition struct{}

func (puppetDefinition) Symbols() map[string]plex.TokenType { return puppetSymbols() }
func (puppetDefinition) Lex(string, io.Reader) (plex.Lexer, error) {
	return &tokenSource{}, nil
}

// The grammar's parsers are built when first used: a run that parses no
// Puppet chunk (a Salt or CFEngine workspace, a warm chunk cache) does
// not pay the 4 ms building them takes.
var (
	manifestParser = sync.OnceValue(func() *participle.Parser[gStatements] {
		return participle.MustBuild[gStatements](participle.Lexer(puppetDefinition{}), participle.UseLookahead(1))
	})
	interpolationParser = sync.OnceValue(func() *participle.Parser[gInterpolation] {
		return participle.MustBuild[gInterpolation](participle.Lexer(puppetDefinition{}), participle.UseLookahead(1))
	})
)
