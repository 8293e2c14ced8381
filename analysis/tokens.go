package analysis

import (
	"slices"
	"unicode/utf8"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Tokenizer is implemented by systems that can say what each piece of a
// file's text is, for highlighting (the server's semantic tokens). A
// system answers from its own parser: its lexer's tokens and its syntax
// trees, never from a second reader written for highlighting.
//
// Tokens must be cheap (the editor asks after every keystroke): it reads
// the file given, from the parser's chunk caches where it has them, and
// never analyses the workspace. It may be called concurrently with Analyze
// and with itself, on any file the system owns.
type Tokenizer interface {
	Tokens(f *source.File) []Token
}

// Token is a byte span of a file and what it is. Tokens may nest (a
// variable inside a string, a Jinja expression inside a YAML value): the
// innermost wins, see FlattenTokens. They may span lines.
type Token struct {
	Start, End int
	Kind       TokenKind
	Mods       TokenMods
}

// TokenKind is what a piece of text is, in words every system shares; the
// server maps them to the LSP legend.
type TokenKind uint8

const (
	TokNone      TokenKind = iota
	TokKeyword             // language keywords: class, if, bundle, include, Jinja's if/for/set
	TokType                // resource types, data types, bundle/body/promise types
	TokClass               // Puppet classes, CFEngine classes (class expressions)
	TokString              // string literals, resource titles, promisers
	TokVariable            // variables, Salt state IDs
	TokProperty            // attributes, state arguments, requisite keys, constraint names
	TokFunction            // function calls, state functions, DSL methods, bundle and body names
	TokOperator            // operators and relationship arrows
	TokComment             // comments
	TokNumber              // number literals
	TokNamespace           // Salt state modules, SLS names, Puppet module prefixes
	TokMacro               // template and preprocessor syntax: Jinja delimiters, CFEngine @if
	TokParameter           // parameters of classes, defines, bundles, lambdas
	TokRegexp              // regular expressions
	TokSymbol              // literal names: Ruby symbols, true/false/null
	numTokenKinds
)

var tokenKindNames = [...]string{
	TokNone: "none", TokKeyword: "keyword", TokType: "type", TokClass: "class", TokString: "string",
	TokVariable: "variable", TokProperty: "property", TokFunction: "function", TokOperator: "operator",
	TokComment: "comment", TokNumber: "number", TokNamespace: "namespace", TokMacro: "macro",
	TokParameter: "parameter", TokRegexp: "regexp", TokSymbol: "symbol",
}

func (k TokenKind) String() string {
	if int(k) < len(tokenKindNames) {
		return tokenKindNames[k]
	}
	return "?"
}

// TokenKinds lists every kind but TokNone, in order.
func TokenKinds() []TokenKind {
	out := make([]TokenKind, 0, numTokenKinds-1)
	for k := TokKeyword; k < numTokenKinds; k++ {
		out = append(out, k)
	}
	return out
}

// TokenMods are modifiers of a token, a bit set.
type TokenMods uint8

const (
	// ModDeclaration: the place that declares the name (a title, a state
	// ID, a class or bundle definition, an assignment, a parameter).
	ModDeclaration TokenMods = 1 << iota
	// ModReadonly: a name nobody can assign (facts, Salt's and Jinja's
	// built-in variables).
	ModReadonly
	// ModDeprecated: syntax the tool still reads but has deprecated.
	ModDeprecated
	// ModDefaultLibrary: words the tool itself defines (built-in
	// functions, metaparameters, Policyfile DSL methods).
	ModDefaultLibrary
	// ModRelation: the words that order things, what this project is
	// about: Puppet's require/before/notify/subscribe and chaining
	// arrows, Salt's requisites, CFEngine's depends_on, Chef's
	// include_policy.
	ModRelation
	numTokenMods = iota
)

var tokenModNames = [...]string{"declaration", "readonly", "deprecated", "defaultLibrary", "relation"}

// TokenModNames are the modifiers' names, bit by bit.
func TokenModNames() []string { return append([]string(nil), tokenModNames[:numTokenMods]...) }

// String is the modifiers' names joined with dots ("declaration.relation").
func (m TokenMods) String() string {
	s := ""
	for i := 0; i < numTokenMods; i++ {
		if m&(1<<i) != 0 {
			if s != "" {
				s += "."
			}
			s += tokenModNames[i]
		}
	}
	return s
}

// FlattenTokens turns possibly nested, unordered tokens into sorted ones
// that do not overlap: at every byte, of the tokens covering it, the one
// that starts last wins (ties: the shorter, then the later in toks), so an
// inner token cuts its outer one in two. A TokNone token is a hole: it
// cuts what it lies in and is not returned (a template tag inside a YAML
// value is none of the value). Tokens are clipped to the text, empty ones
// dropped, and every boundary is moved to the start of the
// UTF-8 character it falls in (an editor cannot place a token inside a
// character).
func FlattenTokens(toks []Token, text []byte) []Token {
	n := len(text)
	type item struct {
		Token
		i int
	}
	items := make([]item, 0, len(toks))
	for i, t := range toks {
		t.Start = runeStart(text, min(max(t.Start, 0), n))
		t.End = runeStart(text, min(max(t.End, 0), n))
		if t.Start >= t.End {
			continue
		}
		items = append(items, item{t, i})
	}
	items = sortRuns(items, func(x, y item) int {
		if x.Start != y.Start {
			return x.Start - y.Start
		}
		if x.End != y.End {
			return y.End - x.End
		}
		return x.i - y.i
	})
	out := make([]Token, 0, len(items))
	emit := func(t Token, a, b int) {
		if a >= b || t.Kind == TokNone {
			return
		}
		t.Start, t.End = a, b
		out = append(out, t)
	}
	var stack []Token
	cur := 0
	for _, it := range items {
		t := it.Token
		for len(stack) > 0 && stack[len(stack)-1].End <= t.Start {
			top := stack[len(stack)-1]
			emit(top, max(cur, top.Start), top.End)
			cur = max(cur, top.End)
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			emit(top, max(cur, top.Start), t.Start)
		}
		cur = max(cur, t.Start)
		stack = append(stack, t)
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		emit(top, max(cur, top.Start), top.End)
		cur = max(cur, top.End)
		stack = stack[:len(stack)-1]
	}
	return out
}

// sortRuns sorts xs by cmp (a total order). Tokens come as a few sorted
// runs (a lexer's, then a tree walk's): they are merged, in O(n log runs),
// rather than sorted again (a generic sort of a 100 KB manifest's tokens
// was a third of its highlighting); many runs are sorted the usual way.
func sortRuns[T any](xs []T, cmp func(a, b T) int) []T {
	var starts []int
	for i := range xs {
		if i == 0 || cmp(xs[i-1], xs[i]) > 0 {
			starts = append(starts, i)
			if len(starts) > 64 {
				slices.SortFunc(xs, cmp)
				return xs
			}
		}
	}
	buf := make([]T, len(xs))
	for len(starts) > 1 {
		var next []int
		for k := 0; k < len(starts); k += 2 {
			a := starts[k]
			if k+1 == len(starts) {
				copy(buf[a:], xs[a:])
				next = append(next, a)
				break
			}
			m := starts[k+1]
			e := len(xs)
			if k+2 < len(starts) {
				e = starts[k+2]
			}
			i, j, o := a, m, a
			for i < m && j < e {
				if cmp(xs[j], xs[i]) < 0 {
					buf[o] = xs[j]
					j++
				} else {
					buf[o] = xs[i]
					i++
				}
				o++
			}
			o += copy(buf[o:], xs[i:m])
			copy(buf[o:], xs[j:e])
			next = append(next, a)
		}
		xs, buf = buf, xs
		starts = next
	}
	return xs
}

// runeStart moves off back to the start of the UTF-8 sequence it is in.
func runeStart(text []byte, off int) int {
	for i := 0; i < utf8.UTFMax-1 && off > 0 && off < len(text) && !utf8.RuneStart(text[off]); i++ {
		off--
	}
	return off
}
