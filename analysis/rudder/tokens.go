package rudder

import (
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Highlighting (analysis.Tokenizer) of what the Rudder reader exposes:
// the JSON of an export (keys, strings, numbers, literals) and, from the
// model it imports, the names of rules (class.declaration), directives
// (string.declaration), techniques (type; declared in metadata.xml,
// technique.yml and API listings) and groups (namespace), the rules'
// directive and group references, and directive parameters. XML and
// YAML techniques get the model's names only.

// Tokens implements analysis.Tokenizer.
func (s *system) Tokens(f *source.File) []analysis.Token {
	var out []analysis.Token
	add := func(sp prs.Span, k analysis.TokenKind, m analysis.TokenMods) {
		if sp.End > sp.Start {
			out = append(out, analysis.Token{Start: sp.Start, End: sp.End, Kind: k, Mods: m})
		}
	}
	// a value's token covers its quotes, as the JSON string's does
	quoted := func(sp prs.Span) prs.Span {
		if sp.Start > 0 && sp.End < len(f.Text) && (f.Text[sp.Start-1] == '"' || f.Text[sp.Start-1] == '\'') && f.Text[sp.End] == f.Text[sp.Start-1] {
			return prs.Span{Start: sp.Start - 1, End: sp.End + 1}
		}
		return sp
	}
	str := func(v prs.Str, k analysis.TokenKind, m analysis.TokenMods) {
		if v.Set {
			add(quoted(v.At), k, m)
		}
	}
	if strings.HasSuffix(strings.ToLower(f.URI), ".json") {
		if root, _ := prs.ParseJSON(f.Text); root != nil {
			jsonTokens(root, add, 0)
		}
	}
	pf := s.parse(f)
	for _, r := range pf.Rules {
		str(r.ID, analysis.TokString, analysis.ModDeclaration)
		str(r.Name, analysis.TokClass, analysis.ModDeclaration)
		// (the directives a rule names are strings as JSON has them)
		for _, t := range r.Targets.Simples() {
			str(t, analysis.TokNamespace, 0)
		}
	}
	for _, d := range pf.Directives {
		str(d.ID, analysis.TokString, analysis.ModDeclaration)
		str(d.Name, analysis.TokString, analysis.ModDeclaration)
		str(d.TechniqueName, analysis.TokType, 0)
		for _, v := range d.Vars {
			str(v.Name, analysis.TokProperty, 0)
		}
	}
	for _, t := range pf.Techniques {
		str(t.ID, analysis.TokType, analysis.ModDeclaration)
		str(t.Name, analysis.TokType, analysis.ModDeclaration)
		str(t.Version, analysis.TokString, 0)
	}
	for _, g := range pf.Groups {
		str(g.ID, analysis.TokNamespace, analysis.ModDeclaration)
		str(g.Name, analysis.TokNamespace, analysis.ModDeclaration)
	}
	return out
}

func jsonTokens(j *prs.JSON, add func(prs.Span, analysis.TokenKind, analysis.TokenMods), depth int) {
	if j == nil || depth > prs.MaxDepth {
		return
	}
	at := prs.Span{Start: j.Start, End: j.End}
	switch j.Kind {
	case prs.JString:
		add(at, analysis.TokString, 0)
	case prs.JNumber:
		add(at, analysis.TokNumber, 0)
	case prs.JBool, prs.JNull:
		add(at, analysis.TokKeyword, 0)
	case prs.JArray:
		for _, it := range j.Items {
			jsonTokens(it, add, depth+1)
		}
	case prs.JObject:
		for _, m := range j.Members {
			// KeyAt is the key's content: the token takes its quotes
			add(prs.Span{Start: m.KeyAt.Start - 1, End: m.KeyAt.End + 1}, analysis.TokProperty, 0)
			jsonTokens(m.Value, add, depth+1)
		}
	}
}
