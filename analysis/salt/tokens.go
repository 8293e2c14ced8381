package salt

import (
	"hash/maphash"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Highlighting (analysis.Tokenizer) of an SLS file: the YAML nodes of the
// parse say what each key and value is in Salt's terms (state ID, state
// module and function, argument, requisite and its target, include), the
// template lexer gives the Jinja syntax (delimiters, statements,
// expressions, comments) over it; Jinja tokens lie inside the YAML text
// they produce, so they win there.

// Tokens implements analysis.Tokenizer.
func (s *System) Tokens(f *source.File) []analysis.Token {
	p := s.viewParse(f)
	lay := p.Layout()
	var out []analysis.Token
	add := func(a, b int, k analysis.TokenKind, m analysis.TokenMods) {
		if b > a {
			out = append(out, analysis.Token{Start: a, End: b, Kind: k, Mods: m})
		}
	}
	for _, c := range lay.Comments {
		add(c.Start, c.End, analysis.TokComment, 0)
	}
	for _, b := range lay.Blocks {
		add(b.Start, b.End, analysis.TokString, 0)
	}
	y := &yamlTokens{src: f.Text, add: add}
	top := strings.EqualFold(filepath.Base(f.URI), "top.sls")
	for _, e := range p.Entries {
		if e.Opaque || e.Key == nil {
			continue
		}
		y.scalar(e.Key) // what the key is as YAML, refined below
		switch key := e.Key.Value; {
		case top:
			y.at(e.Key, analysis.TokKeyword, 0) // an environment
			y.top(e.Val)
		case key == "include":
			y.at(e.Key, analysis.TokKeyword, 0)
			y.includes(e.Val)
		case key == "exclude":
			y.at(e.Key, analysis.TokKeyword, 0)
			y.excludes(e.Val)
		case key == "extend":
			y.at(e.Key, analysis.TokKeyword, 0)
			if e.Val != nil && e.Val.Kind == sp.Map {
				for i, k := range e.Val.Keys {
					y.at(k, analysis.TokVariable, 0) // the ID extended
					y.states(e.Val.Vals[i])
				}
			} else {
				y.value(e.Val)
			}
		default:
			y.at(e.Key, analysis.TokVariable, analysis.ModDeclaration) // a state ID
			if e.Val != nil && e.Val.Kind == sp.Scalar && e.Val.Tag != "!!null" {
				y.stateFunc(e.Val) // `id: pkg.installed`
			} else {
				y.states(e.Val)
			}
		}
	}
	for _, t := range lay.Tags {
		add(t.Start, t.End, analysis.TokNone, 0) // no YAML inside a tag
	}
	if lay.Shebang.End > 0 {
		add(lay.Shebang.Start, lay.Shebang.End, analysis.TokMacro, 0)
	}
	return jinjaTokens(out, f.Text, lay.Template)
}

// viewParse is a parse of f for what the editor shows and asks of a text
// the analysis may not have read (tokens, layout edits): the analysis's
// when it has one, else a parse without template variables, kept for the
// last few texts (an edit asks for the tokens of both texts, then whether
// it is layout only).
func (s *System) viewParse(f *source.File) *sp.File {
	if p := s.cachedParse(f); p != nil {
		return p
	}
	h := maphash.Bytes(seed, f.Text)
	k := sfileKey{uri: f.URI, h: h, n: len(f.Text)}
	s.mu.Lock()
	for _, v := range s.views {
		if v.k == k {
			s.mu.Unlock()
			return v.p
		}
	}
	s.mu.Unlock()
	p := sp.Parse(f.Text, nil, s.cache.yaml)
	s.mu.Lock()
	s.views = append(s.views, viewEntry{k, p})
	if len(s.views) > 4 {
		s.views = append(s.views[:0:0], s.views[len(s.views)-4:]...)
	}
	s.mu.Unlock()
	return p
}

type viewEntry struct {
	k sfileKey
	p *sp.File
}

// cachedParse is the analysis's parse of exactly this text, if it has one
// (parsed with the file's template variables); nil otherwise.
func (s *System) cachedParse(f *source.File) *sp.File {
	h := maphash.Bytes(seed, f.Text)
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, sf := range s.files {
		if k.uri == f.URI && k.h == h && k.n == len(f.Text) && sf.p != nil {
			return sf.p
		}
	}
	return nil
}

type yamlTokens struct {
	src []byte
	add func(a, b int, k analysis.TokenKind, m analysis.TokenMods)
}

func (y *yamlTokens) at(n *sp.Node, k analysis.TokenKind, m analysis.TokenMods) {
	if n != nil {
		y.add(n.Start, n.End, k, m)
	}
}

// scalar marks a scalar as YAML reads it: string, number, or a literal
// name (true, false, null).
func (y *yamlTokens) scalar(n *sp.Node) {
	if n == nil || n.Kind != sp.Scalar || n.End <= n.Start {
		return
	}
	switch n.Tag {
	case "!!int", "!!float":
		y.at(n, analysis.TokNumber, 0)
	case "!!bool", "!!null":
		y.at(n, analysis.TokKeyword, 0)
	default:
		if c := y.src[n.Start]; c == '|' || c == '>' {
			return // a block scalar's indicator: its body is a string
		}
		y.at(n, analysis.TokString, 0)
	}
}

// value marks any YAML value: keys of maps are properties.
func (y *yamlTokens) value(n *sp.Node) {
	y.walk(n, 0)
}

func (y *yamlTokens) walk(n *sp.Node, depth int) {
	if n == nil || depth > 100 {
		return
	}
	switch n.Kind {
	case sp.Scalar:
		y.scalar(n)
	case sp.Map:
		for i, k := range n.Keys {
			y.scalar(k)
			y.at(k, analysis.TokProperty, 0)
			y.walk(n.Vals[i], depth+1)
		}
	case sp.Seq:
		for _, it := range n.Items {
			y.walk(it, depth+1)
		}
	}
}

// plain reports whether the node's source is its value as written (no
// quotes, no template), so offsets inside it are offsets in the value.
func (y *yamlTokens) plain(n *sp.Node) bool {
	return n.End-n.Start == len(n.Value) && string(y.src[n.Start:n.End]) == n.Value
}

// stateFunc marks `module.function` (or a bare module, or `- function`):
// the module as a namespace, the function as a function.
func (y *yamlTokens) stateFunc(n *sp.Node) {
	if n == nil || n.Kind != sp.Scalar {
		y.value(n)
		return
	}
	if mod, _, ok := strings.Cut(n.Value, "."); ok && y.plain(n) {
		y.add(n.Start, n.Start+len(mod), analysis.TokNamespace, 0)
		y.add(n.Start+len(mod)+1, n.End, analysis.TokFunction, 0)
		return
	}
	y.at(n, analysis.TokFunction, 0)
}

// states marks an ID's body: state declarations `module.function:` with
// their argument lists.
func (y *yamlTokens) states(n *sp.Node) {
	if n == nil || n.Kind != sp.Map {
		y.value(n)
		return
	}
	for i, k := range n.Keys {
		v := n.Vals[i]
		if strings.HasPrefix(k.Value, "_") { // __env__, __sls__
			y.scalar(k)
			y.at(k, analysis.TokProperty, 0)
			y.value(v)
			continue
		}
		if !strings.Contains(k.Value, ".") {
			// old style `pkg:` with `- installed` in the list
			y.at(k, analysis.TokNamespace, 0)
		} else {
			y.stateFunc(k)
		}
		if v == nil || v.Kind != sp.Seq {
			y.value(v)
			continue
		}
		for _, it := range v.Items {
			switch it.Kind {
			case sp.Scalar:
				y.at(it, analysis.TokFunction, 0)
			case sp.Map:
				for j, ak := range it.Keys {
					y.scalar(ak)
					if requisiteKeys[ak.Value] {
						y.at(ak, analysis.TokProperty, analysis.ModRelation)
						y.requisites(it.Vals[j])
					} else {
						y.at(ak, analysis.TokProperty, 0)
						y.value(it.Vals[j])
					}
				}
			default:
				y.value(it)
			}
		}
	}
}

// requisites marks a requisite's targets: `- pkg: nginx` (module, then
// the ID or name it names), `- sls: web` (an SLS), `- nginx` (an ID).
func (y *yamlTokens) requisites(v *sp.Node) {
	if v == nil {
		return
	}
	items := []*sp.Node{v}
	if v.Kind == sp.Seq {
		items = v.Items
	}
	for _, it := range items {
		switch it.Kind {
		case sp.Scalar:
			y.scalar(it)
			y.at(it, analysis.TokVariable, 0)
		case sp.Map:
			for i, k := range it.Keys {
				t := it.Vals[i]
				y.scalar(t)
				if k.Value == "sls" {
					y.at(k, analysis.TokKeyword, 0)
					y.at(t, analysis.TokNamespace, 0)
					continue
				}
				y.at(k, analysis.TokNamespace, 0)
				if t.Kind == sp.Scalar {
					y.at(t, analysis.TokVariable, 0)
				} else {
					y.value(t)
				}
			}
		default:
			y.value(it)
		}
	}
}

// includes marks the SLS names of an include list.
func (y *yamlTokens) includes(v *sp.Node) {
	if v == nil || v.Kind != sp.Seq {
		y.value(v)
		return
	}
	for _, it := range v.Items {
		switch it.Kind {
		case sp.Scalar:
			y.scalar(it)
			y.at(it, analysis.TokNamespace, 0)
		case sp.Map: // `- env: sls`, or `- sls: {defaults: ...}`
			for i, k := range it.Keys {
				y.scalar(k)
				if x := it.Vals[i]; x.Kind == sp.Scalar {
					y.at(k, analysis.TokKeyword, 0)
					y.scalar(x)
					y.at(x, analysis.TokNamespace, 0)
				} else {
					y.at(k, analysis.TokNamespace, 0)
					y.value(x)
				}
			}
		default:
			y.value(it)
		}
	}
}

// excludes marks `- sls: name` and `- id: name` (or a bare SLS name).
func (y *yamlTokens) excludes(v *sp.Node) {
	if v == nil || v.Kind != sp.Seq {
		y.value(v)
		return
	}
	for _, it := range v.Items {
		switch it.Kind {
		case sp.Scalar:
			y.scalar(it)
			y.at(it, analysis.TokNamespace, 0)
		case sp.Map:
			for i, k := range it.Keys {
				y.at(k, analysis.TokKeyword, 0)
				x := it.Vals[i]
				y.scalar(x)
				if k.Value == "id" {
					y.at(x, analysis.TokVariable, 0)
				} else {
					y.at(x, analysis.TokNamespace, 0)
				}
			}
		default:
			y.value(it)
		}
	}
}

// top marks a top file's environment: targets, then SLS names.
func (y *yamlTokens) top(v *sp.Node) {
	if v == nil || v.Kind != sp.Map {
		y.value(v)
		return
	}
	for i, k := range v.Keys {
		y.scalar(k)
		x := v.Vals[i]
		if x == nil || x.Kind != sp.Seq {
			y.value(x)
			continue
		}
		for _, it := range x.Items {
			if it.Kind == sp.Scalar {
				y.scalar(it)
				y.at(it, analysis.TokNamespace, 0)
			} else {
				y.value(it) // `- match: grain`
			}
		}
	}
}

// jinjaWords are Jinja's word operators and literals.
var jinjaWords = map[string]bool{
	"in": true, "not": true, "and": true, "or": true, "is": true, "if": true, "else": true,
	"import": true, "from": true, "as": true, "with": true, "without": true, "context": true,
	"recursive": true, "true": true, "false": true, "none": true, "True": true, "False": true, "None": true,
}

// saltVars are the variables Salt gives every SLS template.
var saltVars = map[string]bool{
	"salt": true, "grains": true, "pillar": true, "opts": true, "saltenv": true, "sls": true,
	"slspath": true, "sls_path": true, "slsdotpath": true, "slscolonpath": true, "tpldir": true,
	"tplfile": true, "tplpath": true, "tpldot": true, "env": true, "minion_id": true, "__opts__": true,
	"__salt__": true, "__grains__": true, "__pillar__": true, "loop": true,
}

// jinjaTokens classifies the template tokens: delimiters are macros,
// statement words keywords, names variables (declared by set, for,
// macro, import), functions (called, filters, macros) or attributes.
func jinjaTokens(out []analysis.Token, src []byte, toks []sp.TemplateToken) []analysis.Token {
	add := func(t sp.TemplateToken, k analysis.TokenKind, m analysis.TokenMods) {
		if t.End > t.Start {
			out = append(out, analysis.Token{Start: t.Start, End: t.End, Kind: k, Mods: m})
		}
	}
	text := func(t sp.TemplateToken) string { return string(src[t.Start:t.End]) }
	isOp := func(i int, s string) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == sp.TOp && text(toks[i]) == s
	}
	// state of the current {% %}: its statement word; whether the names
	// read now are declared (set a, b =; for a, b in; import ... as m;
	// from ... import a, b); in a macro, whether its name was read, the
	// depth of parentheses and whether a parameter name comes next
	var stmt string
	var declare, named, param bool
	depth := 0
	for i, t := range toks {
		switch t.Kind {
		case sp.TDelim:
			add(t, analysis.TokMacro, 0)
			stmt, declare, named, param, depth = "", false, false, false, 0
		case sp.TComment:
			add(t, analysis.TokComment, 0)
		case sp.TTag:
			stmt = text(t)
			declare = stmt == "set" || stmt == "for"
			add(t, analysis.TokKeyword, 0)
		case sp.TString:
			add(t, analysis.TokString, 0)
		case sp.TNumber:
			add(t, analysis.TokNumber, 0)
		case sp.TOp:
			op := text(t)
			switch op {
			case "(", "[", "{":
				depth++
				param = stmt == "macro" && depth == 1 && op == "("
			case ")", "]", "}":
				depth--
			case ",":
				param = stmt == "macro" && depth == 1
			case "=":
				param = false
				if stmt == "set" {
					declare = false
				}
			}
			switch op {
			case "(", ")", "[", "]", "{", "}", ",", ":", ".":
			default:
				add(t, analysis.TokOperator, 0)
			}
		case sp.TName:
			w := text(t)
			switch {
			case stmt == "macro" && !named:
				named = true
				add(t, analysis.TokFunction, analysis.ModDeclaration)
			case stmt == "macro" && param:
				param = false
				add(t, analysis.TokParameter, analysis.ModDeclaration)
			case w == "in" && stmt == "for":
				declare = false
				add(t, analysis.TokKeyword, 0)
			case (w == "as" || w == "import") && (stmt == "import" || stmt == "from"):
				declare = true
				add(t, analysis.TokKeyword, 0)
			case isOp(i-1, "."):
				add(t, analysis.TokProperty, 0)
			case isOp(i-1, "|"):
				add(t, analysis.TokFunction, analysis.ModDefaultLibrary) // a filter
			case jinjaWords[w]:
				add(t, analysis.TokKeyword, 0)
			case declare && depth == 0:
				add(t, analysis.TokVariable, analysis.ModDeclaration)
			case isOp(i+1, "("):
				add(t, analysis.TokFunction, 0)
			case saltVars[w]:
				add(t, analysis.TokVariable, analysis.ModReadonly|analysis.ModDefaultLibrary)
			default:
				add(t, analysis.TokVariable, 0)
			}
		}
	}
	return out
}
