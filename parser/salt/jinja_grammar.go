package salt

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"sync"
)

// The Jinja grammar, after jinja2/parser.py: the template statements
// Salt's environment knows (Jinja's own, the do and loop-control
// extensions, Salt's serializer tags) and the expression language, one
// struct per precedence level. jinja_convert.go turns it into the tree
// the renderer walks.

type jgTemplate struct {
	Nodes []*jgNode `parser:"@@*"`
}

type jgNode struct {
	Text   lexer.Token `parser:"  @Text"`
	Output *jgOutput   `parser:"| @@"`
	Open   lexer.Token `parser:"| @TagOpen"`
	Stmt   *jgStmt     `parser:"  @@"`
}

type jgOutput struct {
	Open  lexer.Token `parser:"@VarOpen"`
	X     *jgTuple    `parser:"@@"`
	Close lexer.Token `parser:"@VarClose"`
}

// jgStmt is a statement after its `{%`. A tag that opens a body may end
// in ':' (jinja2's parse_statements skips one "for python
// compatibility": `{% if x: %}`, AppThemes/salt-config-example). Unknown tags (extensions Salt
// may load) print nothing; the tags that end or split a block are never
// unknown.
type jgStmt struct {
	If         *jgIf         `parser:"  @@"`
	For        *jgFor        `parser:"| @@"`
	Set        *jgSet        `parser:"| @@"`
	Macro      *jgMacro      `parser:"| @@"`
	CallBlock  *jgCallBlock  `parser:"| @@"`
	Filter     *jgFilterTag  `parser:"| @@"`
	With       *jgWith       `parser:"| @@"`
	Block      *jgBlockTag   `parser:"| @@"`
	Autoescape *jgAutoescape `parser:"| @@"`
	Load       *jgLoad       `parser:"| @@"`
	Import     *jgImport     `parser:"| @@"`
	From       *jgFrom       `parser:"| @@"`
	Do         *jgDo         `parser:"| @@"`
	Include    *jgInclude    `parser:"| @@"`
	Extends    *jgExtends    `parser:"| @@"`
	Loop       string        `parser:"| @( 'break' | 'continue' ) TagClose"`
	Other      *jgOther      `parser:"| @@"`
}

type jgIf struct {
	Cond  *jgOrTuple  `parser:"'if' @@"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
	Elifs []*jgElif   `parser:"@@*"`
	Else  *jgElse     `parser:"@@?"`
	End   lexer.Token `parser:"@TagOpen 'endif' TagClose"`
}

type jgElif struct {
	Open  lexer.Token `parser:"@TagOpen 'elif'"`
	Cond  *jgOrTuple  `parser:"@@"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
}

type jgElse struct {
	Open  lexer.Token `parser:"@TagOpen 'else'"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
}

type jgFor struct {
	Targets *jgTargets  `parser:"'for' @@ 'in'"`
	Iter    *jgOrTuple  `parser:"@@"`
	Cond    *jgExpr     `parser:"( 'if' @@ )?"`
	Rec     bool        `parser:"@'recursive'?"`
	Close   lexer.Token `parser:"':'? @TagClose"`
	Body    []*jgNode   `parser:"@@*"`
	Else    *jgElse     `parser:"@@?"`
	End     lexer.Token `parser:"@TagOpen 'endfor' TagClose"`
}

// jgTargets are assignment targets: `a`, `k, v`, `(k, v)`, `ns.x`.
type jgTargets struct {
	Paren bool        `parser:"@'('?"`
	Names []*jgTarget `parser:"@@ ( ',' @@ )* ','? ( ')' )?"`
}

// jgTarget is one target, or a parenthesised tuple of them
// (`for name, (proto, port) in ...`).
type jgTarget struct {
	Pos  lexer.Position
	Sub  []*jgTarget `parser:"( '(' @@ ( ',' @@ )* ','? ')'"`
	Name string      `parser:"| @Name"`
	Attr string      `parser:"  ( '.' @Name )? )"`
}

type jgSet struct {
	Targets *jgTargets  `parser:"'set' @@"`
	Value   *jgTuple    `parser:"( '=' @@ TagClose"`
	Filters []*jgFilter `parser:"| ( '|' @@ )* TagClose"`
	Body    []*jgNode   `parser:"  @@*"`
	End     lexer.Token `parser:"  @TagOpen 'endset' TagClose )"`
}

type jgMacro struct {
	Name   string      `parser:"'macro' @Name"`
	Params []*jgParam  `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
	Close  lexer.Token `parser:"':'? @TagClose"`
	Body   []*jgNode   `parser:"@@*"`
	End    lexer.Token `parser:"@TagOpen 'endmacro' TagClose"`
}

type jgParam struct {
	Name    string  `parser:"@Name"`
	Default *jgExpr `parser:"( '=' @@ )?"`
}

type jgCallBlock struct {
	Params []*jgParam  `parser:"'call' ( '(' ( @@ ( ',' @@ )* ','? )? ')' )?"`
	Call   *jgExpr     `parser:"@@"`
	Close  lexer.Token `parser:"':'? @TagClose"`
	Body   []*jgNode   `parser:"@@*"`
	End    lexer.Token `parser:"TagOpen 'endcall' @TagClose"`
}

type jgFilterTag struct {
	Filters []*jgFilter `parser:"'filter' @@ ( '|' @@ )*"`
	Close   lexer.Token `parser:"':'? @TagClose"`
	Body    []*jgNode   `parser:"@@*"`
	End     lexer.Token `parser:"@TagOpen 'endfilter' TagClose"`
}

type jgWith struct {
	Sets  []*jgAssign `parser:"'with' ( @@ ( ',' @@ )* )?"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
	End   lexer.Token `parser:"@TagOpen 'endwith' TagClose"`
}

type jgAssign struct {
	Name  string  `parser:"@Name '='"`
	Value *jgExpr `parser:"@@"`
}

type jgBlockTag struct {
	Name  string      `parser:"'block' @Name ( 'scoped' )? ( 'required' )?"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
	End   lexer.Token `parser:"@TagOpen 'endblock' Name? TagClose"`
}

type jgAutoescape struct {
	X     *jgExpr     `parser:"'autoescape' @@"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
	End   lexer.Token `parser:"@TagOpen ( 'endautoescape' ) TagClose"`
}

// jgLoad is Salt's `{% load_yaml as x %}...{% endload %}`.
type jgLoad struct {
	Kind  string      `parser:"@( 'load_yaml' | 'load_json' | 'load_text' )"`
	Name  string      `parser:"'as' @Name"`
	Close lexer.Token `parser:"':'? @TagClose"`
	Body  []*jgNode   `parser:"@@*"`
	End   lexer.Token `parser:"@TagOpen ( 'endload' | 'endyaml' | 'endjson' | 'endtext' ) TagClose"`
}

// jgImport is Jinja's `import` and Salt's `import_yaml` and friends.
type jgImport struct {
	Kind string  `parser:"@( 'import' | 'import_yaml' | 'import_json' | 'import_text' )"`
	From *jgExpr `parser:"@@"`
	Name string  `parser:"'as' @Name ( ( 'with' | 'without' ) 'context' )? TagClose"`
}

type jgFrom struct {
	From  *jgExpr         `parser:"'from' @@ 'import'"`
	Names []*jgImportName `parser:"@@ ( ',' @@ )* ','? ( ( 'with' | 'without' ) 'context' )? TagClose"`
}

type jgImportName struct {
	Name  string `parser:"(?! ( 'with' | 'without' ) 'context' ) @Name"`
	Alias string `parser:"( 'as' @Name )?"`
}

type jgDo struct {
	X *jgTuple `parser:"'do' @@ TagClose"`
}

type jgInclude struct {
	X     *jgExpr     `parser:"'include' @@ ( 'ignore' 'missing' )? ( ( 'with' | 'without' ) 'context' )?"`
	Close lexer.Token `parser:"@TagClose"`
}

type jgExtends struct {
	X     *jgExpr     `parser:"'extends' @@"`
	Close lexer.Token `parser:"@TagClose"`
}

// jgOther is a tag of an extension the analysis does not know.
type jgOther struct {
	Word string   `parser:"(?! 'elif' | 'else' | 'endif' | 'endfor' | 'endmacro' | 'endcall' | 'endset' | 'endfilter' | 'endwith' | 'endblock' | 'endraw' | 'endload' | 'endyaml' | 'endjson' | 'endtext' | 'endautoescape' | 'if' | 'for' | 'set' | 'macro' | 'call' | 'filter' | 'with' | 'block' | 'autoescape' | 'load_yaml' | 'load_json' | 'load_text' | 'import' | 'import_yaml' | 'import_json' | 'import_text' | 'from' | 'do' | 'include' | 'extends' | 'break' | 'continue' ) @Tag"`
	Rest []string `parser:"@( ~TagClose )* TagClose"`
}

// ---- expressions (jinja2/parser.py: parse_tuple ... parse_primary) ----

// jgTuple is an expression or a tuple without parentheses (`a, b`).
type jgTuple struct {
	Items []*jgExpr `parser:"@@ ( ',' @@ )*"`
	Comma bool      `parser:"@','?"`
}

// jgOrTuple is jgTuple without conditional expressions (a for loop's
// iterable, where `if` starts the loop's filter; an if's or elif's test,
// jinja2's parse_tuple(with_condexpr=False): `{% if a, b %}` is a tuple,
// truthy, openSUSE/salt-formulas' suse_ha pacemaker/init.sls).
type jgOrTuple struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Items  []*jgOr `parser:"@@ ( ',' @@ )*"`
	Comma  bool    `parser:"@','?"`
}

// jgExpr is a conditional expression: `a if cond else b`.
type jgExpr struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Then   *jgOr   `parser:"@@"`
	Cond   *jgOr   `parser:"( 'if' @@"`
	Else   *jgExpr `parser:"  ( 'else' @@ )? )?"`
}

type jgOr struct {
	Left  *jgAnd   `parser:"@@"`
	Right []*jgAnd `parser:"( 'or' @@ )*"`
}

type jgAnd struct {
	Left  *jgNot   `parser:"@@"`
	Right []*jgNot `parser:"( 'and' @@ )*"`
}

type jgNot struct {
	Not *jgNot     `parser:"  'not' @@"`
	X   *jgCompare `parser:"| @@"`
}

type jgCompare struct {
	Left *jgMath1 `parser:"@@"`
	Ops  []*jgCmp `parser:"@@*"`
}

type jgCmp struct {
	Op    string   `parser:"@( '==' | '!=' | '<=' | '>=' | '<' | '>' | 'in' | 'not' 'in' )"`
	Right *jgMath1 `parser:"@@"`
}

type jgMath1 struct {
	Left *jgConcat    `parser:"@@"`
	Ops  []*jgMath1Op `parser:"@@*"`
}

type jgMath1Op struct {
	Op    string    `parser:"@( '+' | '-' )"`
	Right *jgConcat `parser:"@@"`
}

type jgConcat struct {
	Left  *jgMath2   `parser:"@@"`
	Right []*jgMath2 `parser:"( '~' @@ )*"`
}

type jgMath2 struct {
	Left *jgPow       `parser:"@@"`
	Ops  []*jgMath2Op `parser:"@@*"`
}

type jgMath2Op struct {
	Op    string `parser:"@( '*' | '/' | '//' | '%' )"`
	Right *jgPow `parser:"@@"`
}

type jgPow struct {
	Left  *jgUnary   `parser:"@@"`
	Right []*jgUnary `parser:"( '**' @@ )*"`
}

// jgUnary: signs apply to the primary and its postfixes, filters and
// tests to the signed value (`-x|abs` is `(-x)|abs`).
type jgUnary struct {
	Signs   []string     `parser:"@( '-' | '+' )*"`
	Primary *jgPrimary   `parser:"@@"`
	Postfix []*jgPostfix `parser:"@@*"`
	Filters []*jgFilterX `parser:"@@*"`
}

type jgPostfix struct {
	Attr  *string      `parser:"  '.' @( Name | Number )"`
	Index *jgSubscript `parser:"| '[' @@ ']'"`
	Call  *jgArgs      `parser:"| @@"`
}

type jgSubscript struct {
	Lo    *jgExpr `parser:"@@?"`
	Colon bool    `parser:"( @':'"`
	Hi    *jgExpr `parser:"  @@?"`
	Step  *jgStep `parser:"  @@? )?"`
}

type jgStep struct {
	X *jgExpr `parser:"':' @@?"`
}

// jgFilterX is what may follow a value: a filter, a test or a call of
// the result.
type jgFilterX struct {
	Filter *jgFilter `parser:"  '|' @@"`
	Test   *jgTest   `parser:"| 'is' @@"`
	Call   *jgArgs   `parser:"| @@"`
}

type jgFilter struct {
	Name []string `parser:"@Name ( '.' @Name )*"`
	Args *jgArgs  `parser:"@@?"`
}

type jgTest struct {
	Not  bool       `parser:"@'not'?"`
	Name []string   `parser:"@Name ( '.' @Name )*"`
	Args *jgArgs    `parser:"( @@"`
	Arg  *jgTestArg `parser:"| (?! 'else' | 'or' | 'and' ) @@ )?"`
}

// jgTestArg is the one argument a test takes without parentheses
// (`x is divisibleby 3`).
type jgTestArg struct {
	Primary *jgPrimary   `parser:"@@"`
	Postfix []*jgPostfix `parser:"@@*"`
}

type jgArgs struct {
	Args []*jgArg `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
}

type jgArg struct {
	Star  string  `parser:"@( '*' | '**' )?"`
	Name  string  `parser:"( @Name '=' )?"`
	Value *jgExpr `parser:"@@"`
}

type jgPrimary struct {
	Strings []string `parser:"  @String+"`
	Number  *string  `parser:"| @Number"`
	Name    *string  `parser:"| @Name"`
	Paren   *jgParen `parser:"| '(' @@ ')'"`
	List    *jgList  `parser:"| '[' @@ ']'"`
	Dict    *jgDict  `parser:"| '{' @@ '}'"`
}

type jgParen struct {
	Items []*jgExpr `parser:"( @@ ( ',' @@ )* )?"`
	Comma bool      `parser:"@','?"`
}

type jgList struct {
	Items []*jgExpr `parser:"( @@ ( ',' @@ )* ','? )?"`
}

// jgDict: Bad is a value with no ':' after it (`{'a', 1}`, a set, which
// Jinja has not): it lets the dict fail where it goes wrong instead of
// backtracking to the call that holds it. It never ends a dict.
type jgDict struct {
	Entries []*jgEntry `parser:"( @@ ( ',' @@ )* ','?"`
	Bad     *jgExpr    `parser:"| @@ (?! '}' ) )?"`
}

type jgEntry struct {
	Key   *jgExpr `parser:"@@ ':'"`
	Value *jgExpr `parser:"@@"`
}

// Built on first use: a program that never reads this language does not
// pay for building the grammar at start.
var jinjaParser = sync.OnceValue(func() *participle.Parser[jgTemplate] {
	return participle.MustBuild[jgTemplate](
		participle.Lexer(jinjaDefinition{}),
		participle.UseLookahead(2))
})
