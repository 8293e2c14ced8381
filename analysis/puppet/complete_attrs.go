package puppet

import (
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Attribute names where one is typed in a resource body: a type Puppet
// defines offers its parameters and properties (types_gen.go, with the
// first sentence of Puppet's documentation of each), a defined type or a
// class its parameters as the workspace declares them, and every one the
// metaparameters; the names the body already has are left out. The same
// list is what the quick fix of an unknown attribute picks the nearest
// names from (attrcheck.go).

// attrSite is where an attribute name is typed.
type attrSite struct {
	typ     string // lower case: "file", "apache::vhost", "class"
	title   string // the body's title as written (a class's name)
	start   int    // where the name being typed starts
	written map[string]bool
}

// frame is an open bracket the scan is inside.
type frame struct {
	open     byte
	typ      string // a resource body's type ('{' after a type name)
	title    string
	titleAt  int  // where the title starts (after '{')
	attrs    bool // past the title's colon: attribute names come
	defaults bool // `File { ... }`: attributes from the start
	last     byte // the last significant byte at this depth
	written  map[string]bool
	lastWord string // the identifier just read at this depth
}

// attrSiteAt scans text up to off (strings and comments skipped,
// brackets matched) and says whether off ends a name typed where a
// resource body's attribute goes: after its title's colon, or after a
// comma or semicolon-free attribute list's comma, in the body itself
// (not in a value's array or hash).
func attrSiteAt(text []byte, off int) (attrSite, bool) {
	start := off
	for start > 0 && isAttrByte(text[start-1]) {
		start--
	}
	if start < off && (text[start] < 'a' || text[start] > 'z') {
		return attrSite{}, false
	}
	stack := []*frame{{open: 0}}
	top := func() *frame { return stack[len(stack)-1] }
	for i := 0; i < start; i++ {
		c := text[i]
		switch {
		case c == '#':
			for i < start && text[i] != '\n' {
				i++
			}
			if i >= start {
				return attrSite{}, false // in a comment
			}
			continue
		case c == '/' && i+1 < start && text[i+1] == '*':
			j := strings.Index(string(text[i+2:start]), "*/")
			if j < 0 {
				return attrSite{}, false
			}
			i += j + 3
			continue
		case c == '\'' || c == '"':
			j := i + 1
			for j < start && text[j] != c {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= start {
				return attrSite{}, false // in a string
			}
			i = j
			top().last = c
			top().lastWord = ""
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c != ':' && isAttrByte(c) || c >= 'A' && c <= 'Z' || c == ':' && i+2 < start && text[i+1] == ':' && text[i+2] != ':':
			j := i
			for j < start && (isAttrByte(text[j]) || text[j] >= 'A' && text[j] <= 'Z') {
				j++
			}
			f := top()
			switch {
			case i > 0 && text[i-1] == '$':
				f.last, f.lastWord = 'v', "" // a variable
			case f.last == 'w' && (f.lastWord == "inherits" || blockWord[f.lastWord] || f.lastWord == "class"):
				f.last, f.lastWord = 'n', "" // a definition's name, a condition's word
			default:
				f.last, f.lastWord = 'w', string(text[i:j])
			}
			i = j - 1
			continue
		}
		f := top()
		switch c {
		case '{':
			nf := &frame{open: '{', titleAt: i + 1, last: '{'}
			if f.last == 'w' && f.lastWord != "" {
				w := strings.TrimPrefix(f.lastWord, "::")
				switch {
				case w[0] >= 'a' && w[0] <= 'z' && !blockWord[w]:
					nf.typ = w
				case w[0] >= 'A' && w[0] <= 'Z':
					nf.typ, nf.attrs, nf.defaults = strings.ToLower(w), true, true
				}
			}
			nf.written = map[string]bool{}
			stack = append(stack, nf)
			f.last, f.lastWord = '{', ""
			continue
		case '(', '[':
			stack = append(stack, &frame{open: c})
			f.last, f.lastWord = c, ""
			continue
		case '}', ')', ']':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			top().last, top().lastWord = c, ""
			continue
		case ':':
			if i+1 < start && text[i+1] == ':' {
				i++ // (a name's ::, read with the name)
				continue
			}
			if f.open == '{' && f.typ != "" && !f.defaults && !f.attrs {
				f.attrs = true
				f.title = strings.Trim(strings.TrimSpace(string(text[f.titleAt:i])), `'"`)
				f.written = map[string]bool{}
			}
		case ';':
			if f.open == '{' && f.typ != "" && !f.defaults {
				f.attrs = false // the next body's title
				f.titleAt = i + 1
			}
		case '=', '+':
			if i+1 < start && text[i+1] == '>' && f.attrs && f.last == 'w' && f.lastWord != "" {
				f.written[f.lastWord] = true
			}
		}
		f.last, f.lastWord = c, ""
	}
	f := top()
	if f.open != '{' || f.typ == "" || !f.attrs {
		return attrSite{}, false
	}
	if f.last != ':' && f.last != ',' && !(f.defaults && f.last == '{') {
		return attrSite{}, false
	}
	writtenAfter(text, off, f.written)
	return attrSite{typ: f.typ, title: f.title, start: start, written: f.written}, true
}

// writtenAfter adds to written the names the body has after off: up to
// its end (`}`, or `;` before the next title), at its own depth.
func writtenAfter(text []byte, off int, written map[string]bool) {
	for off < len(text) && isAttrByte(text[off]) {
		off++ // (the rest of the name at the cursor)
	}
	depth, word := 0, ""
	for i := off; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '\'' || c == '"':
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' {
					i++
				}
			}
			word = ""
		case c >= 'a' && c <= 'z' || c == '_':
			j := i
			for j < len(text) && isAttrByte(text[j]) {
				j++
			}
			word = string(text[i:j])
			i = j - 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case (c == '=' || c == '+') && i+1 < len(text) && text[i+1] == '>':
			if depth == 0 && word != "" {
				written[word] = true
			}
			word = ""
			i++
		case c == '{' || c == '[' || c == '(':
			depth++
			word = ""
		case c == '}' || c == ']' || c == ')':
			if depth == 0 {
				return
			}
			depth--
			word = ""
		case c == ';' && depth == 0:
			return
		default:
			word = ""
		}
	}
}

// blockWord: words a `{` follows that open no resource body.
var blockWord = map[string]bool{
	"class": false, "define": true, "node": true, "if": true, "elsif": true, "else": true, "unless": true,
	"case": true, "default": true, "and": true, "or": true, "in": true, "function": true, "plan": true,
	"apply": true, "application": true, "site": true, "type": true,
}

func isAttrByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == ':'
}

// attrItems lists the names of site's body as a completion.
func (s *System) attrItems(f *source.File, site attrSite, off int) *analysis.Completion {
	var items []analysis.CompletionItem
	add := func(name, detail string) {
		if !site.written[name] {
			items = append(items, analysis.CompletionItem{Label: name, Detail: detail, Attribute: true})
		}
	}
	if t := coreTypes[site.typ]; t != nil {
		for _, a := range t.attrs {
			add(a.name, attrDetail(a))
		}
	} else {
		name, kind := site.typ, "define"
		if site.typ == "class" {
			name, kind = strings.ToLower(strings.TrimPrefix(site.title, "::")), "class"
		}
		params, ok := s.paramsOf(kind, name)
		if !ok {
			return nil // a type we know nothing of: no list rather than the metaparameters alone
		}
		for _, p := range params {
			detail := "parameter of " + kind + " " + name
			if p.Default == nil {
				detail += " (no default: required)"
			}
			add(strings.TrimPrefix(p.Name, "::"), detail)
		}
	}
	for _, a := range metaparamAttrs {
		if a.name == "stage" && site.typ != "class" {
			continue // only classes set their stage
		}
		add(a.name, attrDetail(a))
	}
	return &analysis.Completion{Replace: source.Span{URI: f.URI, Start: site.start, End: off}, Items: items}
}

func attrDetail(a typeAttr) string {
	kind := map[string]string{"property": "property", "param": "parameter", "metaparam": "metaparameter"}[a.kind]
	if a.doc == "" {
		return kind
	}
	return kind + " — " + a.doc
}

// paramsOf finds the parameters of the class or define name among the
// files the last analyses parsed.
func (s *System) paramsOf(kind, name string) ([]*pp.Param, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*pp.Param
	found := false
	for _, p := range s.parsed {
		if p.ast == nil {
			continue
		}
		for _, st := range p.ast.Stmts {
			pp.Walk(st, func(n pp.Node) bool {
				switch t := n.(type) {
				case *pp.ClassDef:
					if kind == "class" && !found && strings.ToLower(strings.TrimPrefix(t.Name, "::")) == name {
						out, found = t.Params, true
					}
					return !found
				case *pp.DefineDef:
					if kind == "define" && !found && strings.ToLower(strings.TrimPrefix(t.Name, "::")) == name {
						out, found = t.Params, true
					}
					return false
				}
				return false
			})
			if found {
				return out, true
			}
		}
	}
	return nil, false
}
