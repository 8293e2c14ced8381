package puppet

import (
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Highlighting (analysis.Tokenizer): the lexer's tokens say what every
// word is as a word (keyword, type name, variable, string, operator,
// comment, heredoc body); the syntax tree of the same text says what it is
// in its place (a resource type, a title, an attribute, a metaparameter, a
// class name, a parameter, an assignment). Tree tokens come after lexer
// tokens: on the same span, analysis.FlattenTokens keeps the later.

// tokenParsers keeps one parser per open document for highlighting,
// apart from the analysis's: a parser shifts the trees of its previous
// parse in place when it reuses their chunks, and the analysis reads its
// trees without a lock while a keystroke's highlighting runs beside it.
// The chunk cache makes an edit re-parse one chunk here too.
type tokenParsers struct {
	mu    sync.Mutex
	byURI map[string]*tokenParser
	order []string // least recently used first
}

type tokenParser struct {
	mu  sync.Mutex
	ps  pp.Parser
	buf []pp.Token // the lexer's tokens, reused between calls
}

// maxTokenParsers bounds the documents whose highlighting parse is kept.
const maxTokenParsers = 16

// maxTokenCache: bigger files are parsed for highlighting without a
// cache (their trees are tens of MB).
const maxTokenCache = 1 << 20

func (tp *tokenParsers) get(uri string) *tokenParser {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.byURI == nil {
		tp.byURI = map[string]*tokenParser{}
	}
	p := tp.byURI[uri]
	for i, u := range tp.order {
		if u == uri {
			tp.order = append(tp.order[:i], tp.order[i+1:]...)
			break
		}
	}
	if p == nil {
		p = &tokenParser{}
		tp.byURI[uri] = p
		if len(tp.order) >= maxTokenParsers {
			delete(tp.byURI, tp.order[0])
			tp.order = tp.order[1:]
		}
	}
	tp.order = append(tp.order, uri)
	return p
}

// Tokens implements analysis.Tokenizer.
func (s *System) Tokens(f *source.File) []analysis.Token {
	if len(f.Text) > maxManifest {
		return nil
	}
	if len(f.Text) > maxTokenCache {
		toks, skipped := pp.LexSkipped(f.Text, nil)
		out := lexerTokens(make([]analysis.Token, 0, len(toks)+len(skipped)), toks, skipped)
		return treeTokens(out, pp.Parse(f.Text))
	}
	p := s.tok.get(f.URI)
	p.mu.Lock()
	defer p.mu.Unlock()
	toks, skipped := pp.LexSkipped(f.Text, p.buf)
	p.buf = toks[:0]
	out := lexerTokens(make([]analysis.Token, 0, len(toks)+len(skipped)), toks, skipped)
	return treeTokens(out, p.ps.Parse(f.Text))
}

func tok(start, end int, k analysis.TokenKind, m analysis.TokenMods) analysis.Token {
	return analysis.Token{Start: start, End: end, Kind: k, Mods: m}
}

// lexerTokens classifies the lexer's tokens as words.
func lexerTokens(out []analysis.Token, toks []pp.Token, skipped []pp.Skipped) []analysis.Token {
	for _, sk := range skipped {
		k := analysis.TokString // a heredoc body, end tag included
		if sk.Comment {
			k = analysis.TokComment
		}
		out = append(out, tok(sk.Pos, sk.End, k, 0))
	}
	for i := range toks {
		t := &toks[i]
		var k analysis.TokenKind
		var m analysis.TokenMods
		switch t.Kind {
		case pp.TName:
			if keywords[t.Val] {
				k = analysis.TokKeyword
			}
		case pp.TTypeName:
			k = analysis.TokType
		case pp.TVar:
			k = analysis.TokVariable
		case pp.TString, pp.TIString:
			k = analysis.TokString
		case pp.TNumber:
			k = analysis.TokNumber
		case pp.TRegex:
			k = analysis.TokRegexp
		case pp.TPunct:
			switch t.Val {
			case "->", "~>", "<-", "<~":
				k, m = analysis.TokOperator, analysis.ModRelation
			case "=>", "+>", "=", "==", "!=", "=~", "!~", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "!",
				"<<", ">>", "+=", "-=", "?", "<|", "|>", "<<|", "|>>", "@", "@@":
				k = analysis.TokOperator
			}
		}
		if k != analysis.TokNone {
			out = append(out, tok(t.Pos, t.End, k, m))
		}
	}
	return out
}

// keywords are the reserved words of the Puppet language (Puppet 7's
// lexer), the words `keyword` highlighting shows.
var keywords = map[string]bool{
	"and": true, "application": true, "attr": true, "case": true, "class": true, "consumes": true,
	"default": true, "define": true, "else": true, "elsif": true, "false": true, "function": true,
	"if": true, "in": true, "inherits": true, "node": true, "or": true, "plan": true, "private": true,
	"produces": true, "site": true, "true": true, "type": true, "undef": true, "unless": true,
	"apply": true,
}

// builtinFunctions are Puppet 7's own functions (and the statement
// functions); deprecatedFunctions the ones Puppet deprecates.
var builtinFunctions = map[string]bool{
	"alert": true, "all": true, "annotate": true, "any": true, "assert_type": true, "binary_file": true,
	"break": true, "call": true, "camelcase": true, "capitalize": true, "ceiling": true, "chomp": true,
	"chop": true, "compare": true, "contain": true, "convert_to": true, "create_resources": true,
	"crit": true, "debug": true, "defined": true, "dig": true, "digest": true, "downcase": true,
	"each": true, "emerg": true, "empty": true, "epp": true, "err": true, "fail": true, "file": true,
	"filter": true, "find_file": true, "find_template": true, "flatten": true, "floor": true,
	"fqdn_rand": true, "generate": true, "get": true, "getvar": true, "group_by": true, "hiera": true,
	"hiera_array": true, "hiera_hash": true, "hiera_include": true, "import": true, "include": true,
	"index": true, "info": true, "inline_epp": true, "inline_template": true, "join": true, "keys": true,
	"length": true, "lest": true, "lookup": true, "lstrip": true, "map": true, "match": true, "max": true,
	"md5": true, "min": true, "module_directory": true, "new": true, "next": true, "notice": true,
	"partition": true, "realize": true, "reduce": true, "regsubst": true, "require": true, "return": true,
	"reverse_each": true, "round": true, "rstrip": true, "scanf": true, "sha1": true, "sha256": true,
	"shellquote": true, "size": true, "slice": true, "sort": true, "split": true, "sprintf": true,
	"step": true, "strftime": true, "strip": true, "tag": true, "tagged": true, "template": true,
	"then": true, "tree_each": true, "type": true, "unique": true, "unwrap": true, "upcase": true,
	"values": true, "versioncmp": true, "warning": true, "with": true,
}

var deprecatedFunctions = map[string]bool{
	"hiera": true, "hiera_array": true, "hiera_hash": true, "hiera_include": true, "import": true,
}

// classFunctions take class names as arguments.
var classFunctions = map[string]bool{"include": true, "contain": true, "require": true}

// otherMetaparams are the metaparameters that make no relationship.
var otherMetaparams = map[string]bool{
	"alias": true, "audit": true, "loglevel": true, "noop": true, "schedule": true, "stage": true, "tag": true,
}

// builtinVars are variables Puppet sets: facts and the compiler's own.
var builtinVars = map[string]bool{
	"facts": true, "trusted": true, "server_facts": true, "settings": true, "title": true, "name": true,
	"module_name": true, "environment": true, "caller_module_name": true,
}

// treeTokens adds what the syntax tree knows: bare words and variables
// first, then what each place makes of its words (which win).
func treeTokens(out []analysis.Token, f *pp.File) []analysis.Token {
	var ctx []analysis.Token
	named := func(n pp.Node, k analysis.TokenKind, m analysis.TokenMods) {
		switch t := n.(type) {
		case *pp.Str, *pp.Name:
			l := n.Span()
			ctx = append(ctx, tok(l.Pos, l.End, k, m))
		case *pp.Array:
			for _, e := range t.Elems {
				switch e.(type) {
				case *pp.Str, *pp.Name:
					l := e.Span()
					ctx = append(ctx, tok(l.Pos, l.End, k, m))
				}
			}
		}
	}
	at := func(l pp.Loc, k analysis.TokenKind, m analysis.TokenMods) {
		if l.End > l.Pos {
			ctx = append(ctx, tok(l.Pos, l.End, k, m))
		}
	}
	for _, st := range f.Stmts {
		pp.Walk(st, func(n pp.Node) bool {
			switch t := n.(type) {
			case *pp.Name:
				out = append(out, tok(t.Pos, t.End, analysis.TokSymbol, 0))
			case *pp.Var:
				var m analysis.TokenMods
				if builtinVars[strings.TrimPrefix(t.Name, "::")] {
					m = analysis.ModReadonly | analysis.ModDefaultLibrary
				}
				out = append(out, tok(t.Pos, t.End, analysis.TokVariable, m))
			case *pp.Resource:
				if t.Type == "class" {
					for _, b := range t.Bodies {
						named(b.Title, analysis.TokClass, 0)
					}
					break
				}
				if t.TypeExpr == nil {
					at(t.TypeLoc, analysis.TokType, 0)
				}
				for _, b := range t.Bodies {
					named(b.Title, analysis.TokString, analysis.ModDeclaration)
				}
			case *pp.Attr:
				switch {
				case t.Name == "*":
				case isMetaparam(t.Name):
					at(t.NameLoc, analysis.TokProperty, analysis.ModRelation|analysis.ModDefaultLibrary)
				case otherMetaparams[t.Name]:
					at(t.NameLoc, analysis.TokProperty, analysis.ModDefaultLibrary)
				default:
					at(t.NameLoc, analysis.TokProperty, 0)
				}
			case *pp.Access:
				if tr, ok := t.X.(*pp.TypeRef); ok && strings.EqualFold(strings.TrimPrefix(tr.Value, "::"), "class") {
					for _, a := range t.Args {
						named(a, analysis.TokClass, 0)
					}
				}
			case *pp.Call:
				if t.Name == "" || t.Name[0] < 'a' || t.Name[0] > 'z' {
					break // Array($x), Sensitive('s'): a type's new()
				}
				var m analysis.TokenMods
				if builtinFunctions[t.Name] {
					m |= analysis.ModDefaultLibrary
				}
				if deprecatedFunctions[t.Name] {
					m |= analysis.ModDeprecated
				}
				if t.Name == "require" {
					m |= analysis.ModRelation
				}
				at(t.NameLoc, analysis.TokFunction, m)
				if classFunctions[t.Name] || t.Name == "hiera_include" {
					for _, a := range t.Args {
						if t.Name != "hiera_include" {
							named(a, analysis.TokClass, 0)
						}
					}
				}
			case *pp.MethodCall:
				var m analysis.TokenMods
				if builtinFunctions[t.Name] {
					m = analysis.ModDefaultLibrary
				}
				at(t.NameLoc, analysis.TokFunction, m)
			case *pp.ClassDef:
				at(t.NameLoc, analysis.TokClass, analysis.ModDeclaration)
				if t.Parent != "" {
					at(t.ParentLoc, analysis.TokClass, 0)
				}
			case *pp.DefineDef:
				at(t.NameLoc, analysis.TokType, analysis.ModDeclaration)
			case *pp.FunctionDef:
				at(t.NameLoc, analysis.TokFunction, analysis.ModDeclaration)
			case *pp.TypeAlias:
				at(t.NameLoc, analysis.TokType, analysis.ModDeclaration)
			case *pp.Block:
				at(t.NameLoc, analysis.TokFunction, analysis.ModDeclaration)
			case *pp.NodeDef:
				for _, m := range t.Matches {
					named(m, analysis.TokString, analysis.ModDeclaration)
				}
			case *pp.Param:
				at(t.NameLoc, analysis.TokParameter, analysis.ModDeclaration)
			case *pp.Binary:
				if v, ok := t.Left.(*pp.Var); ok && t.Op == "=" {
					at(v.Loc, analysis.TokVariable, analysis.ModDeclaration)
				}
			case *pp.Collector:
				if b, ok := t.Query.(*pp.Binary); ok {
					collectorQuery(b, at)
				}
			}
			return true
		})
	}
	return append(out, ctx...)
}

func isMetaparam(name string) bool {
	_, ok := metaparams[name]
	return ok
}

// collectorQuery marks the attribute names a collector's query compares
// (`Package <| tag == 'x' and title != 'y' |>`).
func collectorQuery(b *pp.Binary, at func(pp.Loc, analysis.TokenKind, analysis.TokenMods)) {
	switch b.Op {
	case "and", "or":
		for _, x := range []pp.Node{b.Left, b.Right} {
			if p, ok := x.(*pp.Paren); ok {
				x = p.X
			}
			if bb, ok := x.(*pp.Binary); ok {
				collectorQuery(bb, at)
			}
		}
	case "==", "!=":
		if n, ok := b.Left.(*pp.Name); ok {
			at(n.Loc, analysis.TokProperty, 0)
		}
	}
}
