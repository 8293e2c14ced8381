package chef

import (
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Highlighting (analysis.Tokenizer): in a Policyfile the Ruby scanner's
// tokens say what each piece of Ruby is (strings and heredoc bodies,
// symbols, numbers, comments, keywords, constants, operators, keyword
// arguments), and the parsed statements say which words are Policyfile
// DSL methods (run_list, include_policy, cookbook, default_source, name,
// default/override attributes) and what their arguments name. A lock file
// is JSON: keys, strings, numbers, literals.

// Tokens implements analysis.Tokenizer.
func (s *system) Tokens(f *source.File) []analysis.Token {
	var out []analysis.Token
	add := func(a, b int, k analysis.TokenKind, m analysis.TokenMods) {
		if b > a {
			out = append(out, analysis.Token{Start: a, End: b, Kind: k, Mods: m})
		}
	}
	if strings.HasSuffix(f.URI, ".json") {
		if j, err := pchef.ParseJSON(f.Text); err == nil {
			jsonTokens(j, add, 0)
			if n := j.Key("name"); n != nil && n.Value != nil && n.Value.Kind == pchef.JString {
				add(n.Value.Start, n.Value.End, analysis.TokString, analysis.ModDeclaration)
			}
		}
		return out
	}
	src := f.Text
	for _, t := range pchef.Scan(src) {
		switch t.Kind {
		case pchef.KComment:
			add(t.Start, t.End, analysis.TokComment, 0)
		case pchef.KString, pchef.KWords:
			add(t.Start, t.End, analysis.TokString, 0)
			if t.BodyEnd > t.BodyStart {
				add(t.BodyStart, t.BodyEnd, analysis.TokString, 0) // a heredoc's text
			}
		case pchef.KSymbol:
			add(t.Start, t.End, analysis.TokSymbol, 0)
		case pchef.KLabel:
			add(t.Start, t.End, analysis.TokProperty, 0)
		case pchef.KNumber:
			add(t.Start, t.End, analysis.TokNumber, 0)
		case pchef.KRegex:
			add(t.Start, t.End, analysis.TokRegexp, 0)
		case pchef.KIVar:
			add(t.Start, t.End, analysis.TokVariable, 0)
		case pchef.KConst:
			add(t.Start, t.End, analysis.TokType, 0)
		case pchef.KIdent:
			if rubyKeywords[t.Text(src)] {
				add(t.Start, t.End, analysis.TokKeyword, 0)
			}
		case pchef.KOp:
			add(t.Start, t.End, analysis.TokOperator, 0)
		case pchef.KPunct:
			if w := t.Text(src); w == "=>" || w == "=" {
				add(t.Start, t.End, analysis.TokOperator, 0)
			}
		}
	}
	pf := s.parser.Parse(src)
	for _, st := range pf.Stmts {
		if st.Call != nil {
			c := st.Call
			m := analysis.ModDefaultLibrary
			if c.Name == "include_policy" {
				m |= analysis.ModRelation
			}
			add(c.NameStart, c.NameEnd, analysis.TokFunction, m)
			if c.Name == "name" && len(c.Args) > 0 && c.Args[0].Kind == pchef.VString {
				add(c.Args[0].Start, c.Args[0].End, analysis.TokString, analysis.ModDeclaration)
			}
			for _, p := range c.Opts {
				// (a `key:` label is a property token of the scanner already)
				if p.Key != nil && (p.Key.Kind == pchef.VString || p.Key.Kind == pchef.VSymbol && p.Key.Start < len(src) && src[p.Key.Start] == ':') {
					add(p.Key.Start, p.Key.End, analysis.TokProperty, 0)
				}
			}
		}
		if a := st.Assign; a != nil {
			add(a.LevelStart, a.LevelEnd, analysis.TokFunction, analysis.ModDefaultLibrary)
			for _, k := range a.Keys {
				if k.Kind == pchef.VString || k.Kind == pchef.VSymbol {
					add(k.Start, k.End, analysis.TokProperty, 0)
				}
			}
		}
	}
	return out
}

var rubyKeywords = map[string]bool{
	"alias": true, "and": true, "begin": true, "break": true, "case": true, "class": true, "def": true,
	"defined?": true, "do": true, "else": true, "elsif": true, "end": true, "ensure": true, "false": true,
	"for": true, "if": true, "in": true, "module": true, "next": true, "nil": true, "not": true, "or": true,
	"redo": true, "rescue": true, "retry": true, "return": true, "self": true, "super": true, "then": true,
	"true": true, "undef": true, "unless": true, "until": true, "when": true, "while": true, "yield": true,
	"__FILE__": true, "__dir__": true, "__LINE__": true,
}

func jsonTokens(j *pchef.JSON, add func(a, b int, k analysis.TokenKind, m analysis.TokenMods), depth int) {
	if j == nil || depth > 200 {
		return
	}
	switch j.Kind {
	case pchef.JString:
		add(j.Start, j.End, analysis.TokString, 0)
	case pchef.JNumber:
		add(j.Start, j.End, analysis.TokNumber, 0)
	case pchef.JBool, pchef.JNull:
		add(j.Start, j.End, analysis.TokKeyword, 0)
	case pchef.JArray:
		for _, it := range j.Items {
			jsonTokens(it, add, depth+1)
		}
	case pchef.JObject:
		for _, k := range j.Keys {
			add(k.Start, k.End, analysis.TokProperty, 0)
			jsonTokens(k.Value, add, depth+1)
		}
	}
}
