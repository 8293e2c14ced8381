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
//     AccessOpen vs '['.
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
	gString
	gIString
	gNumber
	gRegex
	gIllegal
	gPunct
	gAccessOpen
	gStmtCall
	gStmtWord
	gKeyword   // a reserved word: if, case, class, and, ...
	gNameBrace // a word before '{': a resource's type where resources may be
	gVarBrace  // a variable before '{'
	gDefStart  // class, define, function, node, type or plan starting a definition
	gApply     // apply(...) { } in a plan (Puppet's tasks mode)
	gtArrow    // -> ~> <- <~
	gtAssign   // = += -=
	gtOr       // or
	gtBinOp    // every other binary operator: and, in, comparisons, arithmetic, matches, shifts
)

func puppetSymbols() map[string]plex.TokenType {
	return map[string]plex.TokenType{
		"EOF": gEOF, "Name": gName, "TypeName": gTypeName, "Var": gVar, "String": gString,
		"IString": gIString, "Number": gNumber, "Regex": gRegex, "Illegal": gIllegal,
		"Punct": gPunct, "AccessOpen": gAccessOpen, "StmtCall": gStmtCall, "StmtWord": gStmtWord,
		"Keyword": gKeyword, "NameBrace": gNameBrace, "VarBrace": gVarBrace, "DefStart": gDefStart, "Apply": gApply,
		"Arrow": gtArrow, "Assign": gtAssign, "Or": gtOr, "BinOp": gtBinOp,
	}
}

// ---- statements ----

type gStatements struct {
	Stmts []*gStatement `parser:"';'* ( @@ ';'* )*"`
}

type gBlock struct {
	Open  plex.Token   `parser:"@'{'"`
	Body  *gStatements `parser:"@@"`
	Close plex.Token   `parser:"@'}'"`
}

// gStatement: a statement that starts like a definition is one (Puppet
// decides on the first two tokens), and so is a statement function.
// Expressions, the most frequent, are tried first.
type gStatement struct {
	Expr     *gExpr        `parser:"  (?! StmtCall | StmtWord | DefStart ) @@"`
	Call     *gStmtCallX   `parser:"| @@"`
	Class    *gClassDef    `parser:"| @@"`
	Define   *gDefineDef   `parser:"| @@"`
	Node     *gNodeDef     `parser:"| @@"`
	Function *gFunctionDef `parser:"| @@"`
	Alias    *gTypeAlias   `parser:"| @@"`
	Plan     *gPlan        `parser:"| @@"`
}

type gClassDef struct {
	Kw     plex.Token `parser:"@'class':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' )"`
	Params *gParams   `parser:"@@?"`
	Parent plex.Token `parser:"( 'inherits' @( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' ) )?"`
	Body   *gBlock    `parser:"@@"`
}

type gDefineDef struct {
	Kw     plex.Token `parser:"@'define':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' )"`
	Params *gParams   `parser:"@@?"`
	Body   *gBlock    `parser:"@@"`
}

type gNodeDef struct {
	Kw      plex.Token    `parser:"@'node':DefStart"`
	Matches []*gNodeMatch `parser:"@@ ( ',' @@ )*"`
	Parent  *gPrimary     `parser:"( 'inherits' @@ )?"`
	Body    *gBlock       `parser:"@@"`
}

// gNodeMatch is a node name: a string, a regex, default, or a host name
// written without quotes (words and numbers joined by dots).
type gNodeMatch struct {
	Tokens  []plex.Token
	Str     plex.Token `parser:"  @( String | IString | Regex )"`
	Default plex.Token `parser:"| @'default'"`
	Host    bool       `parser:"| @( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' | Number ) ( '.' ( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' | Number ) )*"`
}

type gFunctionDef struct {
	Kw     plex.Token `parser:"@'function':DefStart"`
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' )"`
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
	Name   plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' )"`
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
	Ops  []*gPostOp `parser:"@@*"`
}

// ---- expressions ----

// gExpr is an expression statement or a parenthesised expression: every
// operator, resources allowed.
type gExpr struct {
	Left *gOperand `parser:"@@"`
	Ops  []*gBinOp `parser:"@@*"`
}

type gBinOp struct {
	Op    plex.Token `parser:"@( Arrow | Assign | Or | BinOp )"`
	Right *gOperand  `parser:"@@"`
}

// gExpr2 is a value in a list, a hash, an attribute, a title: no arrows,
// no assignment.
type gExpr2 struct {
	Left *gOperand  `parser:"@@"`
	Ops  []*gBinOp2 `parser:"@@*"`
}

type gBinOp2 struct {
	Op    plex.Token `parser:"@( Or | BinOp )"`
	Right *gOperand  `parser:"@@"`
}

// gExpr3 is an argument of a statement function: no `or` either.
type gExpr3 struct {
	Left *gOperand  `parser:"@@"`
	Ops  []*gBinOp3 `parser:"@@*"`
}

type gBinOp3 struct {
	Op    plex.Token `parser:"@BinOp"`
	Right *gOperand  `parser:"@@"`
}

// gCExpr is the head of an if, unless or case: no resources.
type gCExpr struct {
	Left *gCOperand `parser:"@@"`
	Ops  []*gCBinOp `parser:"@@*"`
}

type gCBinOp struct {
	Op    plex.Token `parser:"@( Arrow | Assign | Or | BinOp )"`
	Right *gCOperand `parser:"@@"`
}

// gCExpr2 is a case option's value or a type alias: no resources, no
// arrows, no assignment.
type gCExpr2 struct {
	Left *gCOperand  `parser:"@@"`
	Ops  []*gCBinOp2 `parser:"@@*"`
}

type gCBinOp2 struct {
	Op    plex.Token `parser:"@( Or | BinOp )"`
	Right *gCOperand `parser:"@@"`
}

// gOperand is a unary expression where resources may be declared: one
// of the forms with a block (a resource, resource defaults, an override,
// a collector's override) or a plain value.
type gOperand struct {
	Signs   []plex.Token `parser:"@( ( '-' | '!' | '*' )+ )?"`
	Primary *gRPrimary   `parser:"@@"`
	Ops     []*gPostOp   `parser:"@@*"`
}

// gRPrimary is gPrimary where resources may be declared: a word or a
// variable before '{' declares one, a capitalised name may take a block.
// Each alternative starts with the token that selects it, outside any
// nested struct: participle allocates a struct for every alternative it
// tries, so a failing one then costs no allocation.
type gRPrimary struct {
	Str       *plex.Token   `parser:"  @( String | IString | Number | Regex | Var )"`
	Word      *plex.Token   `parser:"| @( 'true' | 'false' | 'undef' | 'default' )"`
	Name      *plex.Token   `parser:"| @( Name | StmtCall | StmtWord | DefStart )"`
	Args      *gArgs        `parser:"  ( @@"`
	Lambda    *gLambda      `parser:"    @@? )?"`
	Type      *plex.Token   `parser:"| @TypeName"`
	TypeTail  *gTypeTail    `parser:"  @@?"`
	ResType   *plex.Token   `parser:"| @NameBrace"`
	ResBody   *gBody        `parser:"  @@"`
	VarType   *plex.Token   `parser:"| @VarBrace"`
	VarBody   *gBody        `parser:"  @@"`
	At        *plex.Token   `parser:"| @( '@' | '@@' )"`
	AtType    *plex.Token   `parser:"  @NameBrace"`
	AtBody    *gBody        `parser:"  @@"`
	IfKw      *plex.Token   `parser:"| @( 'if' | 'unless' )"`
	If        *gIfTail      `parser:"  @@"`
	CaseKw    *plex.Token   `parser:"| @'case'"`
	Case      *gCaseTail    `parser:"  @@"`
	KwCall    *plex.Token   `parser:"| @( Keyword | 'and' | 'or' | 'in' )"`
	KwArgs    *gArgs        `parser:"  @@"`
	KwLambda  *gLambda      `parser:"  @@?"`
	Apply     *plex.Token   `parser:"| @Apply"`
	ApplyArgs *gArgs        `parser:"  @@"`
	ApplyBody *gBlock       `parser:"  @@"`
	ArrOpen   *plex.Token   `parser:"| @'[':Punct"`
	ArrList   *gList        `parser:"  @@"`
	ArrClose  *plex.Token   `parser:"  @']'"`
	HashOpen  *plex.Token   `parser:"| @'{'"`
	Entries   []*gHashEntry `parser:"  ( @@ ( ',' @@ )* ','? )?"`
	HashEnd   *plex.Token   `parser:"  @'}'"`
	ParOpen   *plex.Token   `parser:"| @'('"`
	ParX      *gExpr        `parser:"  @@"`
	ParClose  *plex.Token   `parser:"  @')'"`
	Illegal   *plex.Token   `parser:"| @Illegal"`
}

// gTypeTail is what may follow a capitalised name where resources may
// be declared: a collector (with its override block), resource defaults
// `File { attrs }`, a type's new() `Integer($x)`, an override
// `File['x'] { attrs }` or `Resource['file'] { title: attrs }`.
type gTypeTail struct {
	Coll     *gCollTail  `parser:"  @@"`
	CollBody *gBody      `parser:"  @@?"`
	Defaults *gBody      `parser:"| @@"`
	New      *gNewTail   `parser:"| @@"`
	AccList  *gList      `parser:"| AccessOpen @@"`
	AccClose *plex.Token `parser:"  @']'"`
	AccBody  *gBody      `parser:"  @@?"`
}

type gCollTail struct {
	Open  plex.Token `parser:"@( '<|' | '<<|' )"`
	Query *gExpr2    `parser:"@@?"`
	Close plex.Token `parser:"@( '|>' | '|>>' )"`
}

type gNewTail struct {
	Args   *gArgs   `parser:"@@"`
	Lambda *gLambda `parser:"@@?"`
}

type gCOperand struct {
	Signs   []plex.Token `parser:"@( ( '-' | '!' | '*' )+ )?"`
	Primary *gPrimary    `parser:"@@"`
	Ops     []*gPostOp   `parser:"@@*"`
}

// gBody is the block of a resource (titles and attributes), of
// defaults or an override (attributes). Bad takes any other value, so
// that a block that holds neither is an error where it goes wrong, not
// a hash read after the name (Puppet commits to the block at its brace).
type gBody struct {
	Open   plex.Token  `parser:"@'{'"`
	Attrs  []*gAttr    `parser:"( ','? @@ ( ',' @@ )* ','?"`
	Bodies []*gResBody `parser:"| @@ ( ';' @@ )* ';'?"`
	Bad    *gExpr2     `parser:"| @@ )?"`
	Close  plex.Token  `parser:"@'}'"`
}

type gResBody struct {
	Tokens []plex.Token
	Title  *gExpr2    `parser:"@@ ':'"`
	Comma  bool       `parser:"@','?"`
	Attrs  []*gAttr   `parser:"( @@ ( ',' @@ )* ','? )?"`
	Tail   plex.Token `parser:"(?= ';' | '}' )"`
}

type gAttr struct {
	Name  plex.Token `parser:"@( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' | '*' )"`
	Op    plex.Token `parser:"@( '=>' | '+>' )"`
	Value *gExpr2    `parser:"@@"`
}

type gPostOp struct {
	AccList  *gList      `parser:"  AccessOpen @@"`
	AccClose *plex.Token `parser:"  @']'"`
	Method   *plex.Token `parser:"| '.' @( Name | NameBrace | StmtCall | StmtWord | Keyword | DefStart | 'and' | 'or' | 'in' | TypeName )"`
	MArgs    *gArgs      `parser:"  @@?"`
	MLambda  *gLambda    `parser:"  @@?"`
	SelOpen  *plex.Token `parser:"| @'?' '{'"`
	Cases    []*gSelCase `parser:"  ( @@ ( ',' @@ )* ','? )?"`
	SelClose *plex.Token `parser:"  @'}'"`
}

type gArgs struct {
	Open  plex.Token `parser:"@'('"`
	List  *gList     `parser:"@@"`
	Close plex.Token `parser:"@')'"`
}

type gSelCase struct {
	Match *gExpr2 `parser:"@@ '=>'"`
	Value *gExpr2 `parser:"@@"`
}

// gList is the inside of [...] or (...): values, and `k => v` pairs that
// together make one hash.
type gList struct {
	Elems []*gElem `parser:"( @@ ( ',' @@ )* ','? )?"`
}

type gElem struct {
	X     *gExpr2 `parser:"@@"`
	Value *gExpr2 `parser:"( '=>' @@ )?"`
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
type gPrimary struct {
	Str       *plex.Token   `parser:"  @( String | IString | Number | Regex | Var | VarBrace )"`
	Word      *plex.Token   `parser:"| @( 'true' | 'false' | 'undef' | 'default' )"`
	Name      *plex.Token   `parser:"| @( Name | StmtCall | StmtWord | DefStart | NameBrace )"`
	Args      *gArgs        `parser:"  ( @@"`
	Lambda    *gLambda      `parser:"    @@? )?"`
	Type      *plex.Token   `parser:"| @TypeName"`
	Coll      *gCollTail    `parser:"  ( @@"`
	New       *gNewTail     `parser:"  | @@ )?"`
	IfKw      *plex.Token   `parser:"| @( 'if' | 'unless' )"`
	If        *gIfTail      `parser:"  @@"`
	CaseKw    *plex.Token   `parser:"| @'case'"`
	Case      *gCaseTail    `parser:"  @@"`
	KwCall    *plex.Token   `parser:"| @( Keyword | 'and' | 'or' | 'in' )"`
	KwArgs    *gArgs        `parser:"  @@"`
	KwLambda  *gLambda      `parser:"  @@?"`
	Apply     *plex.Token   `parser:"| @Apply"`
	ApplyArgs *gArgs        `parser:"  @@"`
	ApplyBody *gBlock       `parser:"  @@"`
	ArrOpen   *plex.Token   `parser:"| @'[':Punct"`
	ArrList   *gList        `parser:"  @@"`
	ArrClose  *plex.Token   `parser:"  @']'"`
	HashOpen  *plex.Token   `parser:"| @'{'"`
	Entries   []*gHashEntry `parser:"  ( @@ ( ',' @@ )* ','? )?"`
	HashEnd   *plex.Token   `parser:"  @'}'"`
	ParOpen   *plex.Token   `parser:"| @'('"`
	ParX      *gExpr        `parser:"  @@"`
	ParClose  *plex.Token   `parser:"  @')'"`
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

type gHashEntry struct {
	Key   *gExpr2 `parser:"@@ '=>'"`
	Value *gExpr2 `parser:"@@"`
}

// gInterpolation is the expression inside "${...}".
type gInterpolation struct {
	X *gExpr `parser:"@@"`
}

// puppetDefinition adapts the lexer to plex.Definition (Lex is never
// used: chunks are fed with ParseFromLexer).
type puppetDefinition struct{}

func (puppetDefinition) Symbols() map[string]plex.TokenType { return puppetSymbols() }
func (puppetDefinition) Lex(string, io.Reader) (plex.Lexer, error) {
	return &tokenSource{}, nil
}

// The grammar's parsers are built when first used: the analysis parses
// with the hand-written parser, and building them took 4 ms of every
// start of the program.
var (
	manifestParser = sync.OnceValue(func() *participle.Parser[gStatements] {
		return participle.MustBuild[gStatements](participle.Lexer(puppetDefinition{}), participle.UseLookahead(1))
	})
	interpolationParser = sync.OnceValue(func() *participle.Parser[gInterpolation] {
		return participle.MustBuild[gInterpolation](participle.Lexer(puppetDefinition{}), participle.UseLookahead(1))
	})
)
