package cfengine

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Highlighting (analysis.Tokenizer) of a policy file: the parser's lexer
// gives keywords, strings, variables (inside strings too), class guards,
// promise types, arrows, comments and macro lines; the syntax tree of the
// same text (from the parser's chunk cache) says what the names are: the
// type and name of each bundle and body, parameters, promisers (a
// variable in vars:, a class in classes:), attributes (depends_on makes
// an order: relation), handles, calls of functions, bundles and bodies,
// and class expressions in strings.

// Tokens implements analysis.Tokenizer.
func (s *System) Tokens(f *source.File) []analysis.Token {
	s.verMu.Lock()
	version := s.version
	s.verMu.Unlock()
	var out []analysis.Token
	add := func(sp cfp.Span, k analysis.TokenKind, m analysis.TokenMods) {
		if sp.End > sp.Start {
			out = append(out, analysis.Token{Start: sp.Start, End: sp.End, Kind: k, Mods: m})
		}
	}
	lexed := cfp.Lex(f.Text, version)
	for _, t := range lexed {
		switch t.Kind {
		case cfp.LKeyword:
			add(t.Span, analysis.TokKeyword, 0)
		case cfp.LString:
			add(t.Span, analysis.TokString, 0)
		case cfp.LClassGuard:
			add(t.Span, analysis.TokClass, 0)
		case cfp.LPromiseGuard:
			add(t.Span, analysis.TokType, 0)
		case cfp.LArrow:
			add(t.Span, analysis.TokOperator, 0)
		case cfp.LComment:
			add(t.Span, analysis.TokComment, 0)
		case cfp.LMacro:
			add(t.Span, analysis.TokMacro, 0)
		}
	}
	pf := s.parser.ParseFor(f.Text, version)
	for _, list := range [][]*cfp.Block{pf.Blocks, pf.Broken} {
		for _, b := range list {
			blockTokens(b, add)
		}
	}
	// variables last: they lie inside strings and promisers
	for _, t := range lexed {
		if t.Kind == cfp.LVar {
			add(t.Span, analysis.TokVariable, 0)
		}
	}
	return out
}

// classAttrs take class expressions; classDefs define classes.
var (
	classAttrs = map[string]bool{"if": true, "ifvarclass": true, "unless": true, "expression": true,
		"and": true, "or": true, "xor": true, "not": true, "dist": true, "select_class": true}
	classDefs = map[string]bool{"promise_repaired": true, "promise_kept": true, "repair_failed": true,
		"repair_denied": true, "repair_timeout": true, "cancel_kept": true, "cancel_repaired": true,
		"cancel_notkept": true}
)

func blockTokens(b *cfp.Block, add func(cfp.Span, analysis.TokenKind, analysis.TokenMods)) {
	add(b.Type.Span, analysis.TokType, 0)
	if b.Kind == "promise" {
		add(b.Name.Span, analysis.TokType, analysis.ModDeclaration) // a custom promise type
	} else {
		add(b.Name.Span, analysis.TokFunction, analysis.ModDeclaration)
	}
	for _, p := range b.Params {
		add(p.Span, analysis.TokParameter, analysis.ModDeclaration)
	}
	for _, c := range b.Attrs {
		constraintTokens(c, add)
	}
	for _, sec := range b.Sections {
		// (the section's type is its `vars:` guard, a lexer token)
		for _, p := range sec.Promises {
			switch sec.Type.Text {
			case "vars":
				add(p.PromiserSpan, analysis.TokVariable, analysis.ModDeclaration)
			case "classes":
				add(p.PromiserSpan, analysis.TokClass, analysis.ModDeclaration)
			default:
				add(p.PromiserSpan, analysis.TokString, analysis.ModDeclaration)
			}
			for _, c := range p.Constraints {
				constraintTokens(c, add)
			}
		}
	}
}

func constraintTokens(c *cfp.Constraint, add func(cfp.Span, analysis.TokenKind, analysis.TokenMods)) {
	switch c.Lval.Text {
	case "depends_on":
		add(c.Lval.Span, analysis.TokProperty, analysis.ModRelation)
	default:
		add(c.Lval.Span, analysis.TokProperty, 0)
	}
	switch {
	case c.Lval.Text == "handle" && c.Rval != nil && c.Rval.Kind == cfp.String:
		add(c.Rval.Span, analysis.TokString, analysis.ModDeclaration)
	case classAttrs[c.Lval.Text]:
		classStrings(c.Rval, 0, add)
	case classDefs[c.Lval.Text]:
		classStrings(c.Rval, analysis.ModDeclaration, add)
	}
	rvalTokens(c.Rval, add, 0)
}

// classStrings marks the content of the strings of r as class
// expressions (or class names, declared).
func classStrings(r *cfp.Rval, m analysis.TokenMods, add func(cfp.Span, analysis.TokenKind, analysis.TokenMods)) {
	if r == nil {
		return
	}
	switch r.Kind {
	case cfp.String:
		if r.Span.End-r.Span.Start >= 2 {
			add(cfp.Span{Start: r.Span.Start + 1, End: r.Span.End - 1}, analysis.TokClass, m)
		}
	case cfp.List:
		for _, it := range r.Items {
			classStrings(it, m, add)
		}
	}
}

func rvalTokens(r *cfp.Rval, add func(cfp.Span, analysis.TokenKind, analysis.TokenMods), depth int) {
	if r == nil || depth > 64 {
		return
	}
	switch r.Kind {
	case cfp.Ident:
		add(r.Span, analysis.TokFunction, 0) // a body or bundle named
	case cfp.Call:
		add(r.NameSpan, analysis.TokFunction, 0)
	}
	for _, it := range r.Items {
		rvalTokens(it, add, depth+1)
	}
}
