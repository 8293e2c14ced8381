package cfengine

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// DefaultVersion is the CFEngine version `@if` macros are evaluated for
// when none is configured: the version of the oracle this package is
// checked against.
const DefaultVersion = "3.21.0"

// knownFeatures are the names `@if feature(x)` accepts (libpromises/feature.c).
var knownFeatures = map[string]bool{
	"pam": true, "yaml": true, "xml": true, "curl": true, "tls_1_0": true, "tls_1_1": true,
	"tls_1_2": true, "tls_1_3": true, "def_json_preparse": true, "host_specific_data_load": true,
	"copyfrom_restrict_keys": true,
}

// Parser parses policy files and caches chunk trees by content. It is
// safe for concurrent use.
type Parser struct {
	// Version is the CFEngine version for @if macros ("" = DefaultVersion).
	Version string

	mu    sync.Mutex
	seed  maphash.Seed
	cache map[uint64]*cached
	old   map[uint64]*cached
}

type cached struct {
	text  string
	block *Block
	// broken: block is only the header of a block with a syntax error
	broken bool
	// at is the offset block's spans start from (0: relative to the
	// chunk); errs are relative to the chunk.
	at   int
	errs []Error
}

// maxCache bounds the number of cached chunks per generation.
const maxCache = 20000

// NewParser returns a parser with an empty cache.
func NewParser() *Parser {
	return &Parser{seed: maphash.MakeSeed(), cache: map[uint64]*cached{}}
}

// Parse parses one file (uncached).
func Parse(text []byte) *File { return NewParser().Parse(text) }

// Parse parses a file, reusing cached chunks.
func (p *Parser) Parse(text []byte) *File { return p.ParseFor(text, p.Version) }

// ParseFor is Parse with the @if macros evaluated for version ("" =
// DefaultVersion) instead of p.Version: a caller running beside the one
// that sets p.Version (highlighting beside an analysis) passes its own.
func (p *Parser) ParseFor(text []byte, version string) *File {
	f := &File{}
	if version == "" {
		version = DefaultVersion
	}
	masked, ignored, merrs := maskMacros(text, version)
	f.Ignored = ignored
	f.Errors = append(f.Errors, merrs...)
	var all []*Block // in file order, broken ones included
	for _, ch := range splitChunks(masked, f) {
		b, broken, errs := p.parseChunk(masked, ch.start, ch.end)
		if b != nil {
			all = append(all, b)
			if broken {
				f.Broken = append(f.Broken, b)
			} else {
				f.Blocks = append(f.Blocks, b)
			}
		}
		f.Errors = append(f.Errors, errs...)
	}
	// body file control: namespace and evaluation_order apply to the
	// blocks that follow it in the file.
	ns, order := "default", ""
	for _, b := range all {
		b.Namespace = ns
		b.EvalOrder = order
		if b.Kind == "body" && b.Type.Text == "file" && b.Name.Text == "control" {
			for _, a := range b.Attrs {
				if a.Rval == nil || a.Rval.Kind != String {
					continue
				}
				switch a.Lval.Text {
				case "namespace":
					ns = a.Rval.Value
				case "evaluation_order":
					order = a.Rval.Value
				}
			}
		}
	}
	return f
}

type chunk struct{ start, end int }

func (p *Parser) parseChunk(text []byte, start, end int) (*Block, bool, []Error) {
	if p.cache == nil {
		p.mu.Lock()
		if p.cache == nil {
			p.seed = maphash.MakeSeed()
			p.cache = map[uint64]*cached{}
		}
		p.mu.Unlock()
	}
	src := text[start:end]
	h := maphash.Bytes(p.seed, src)
	p.mu.Lock()
	c := p.cache[h]
	if c == nil {
		if c = p.old[h]; c != nil {
			p.cache[h] = c
		}
	}
	p.mu.Unlock()
	if c == nil || c.text != string(src) {
		c = &cached{text: string(src), at: start}
		c.block, c.broken, c.errs = parseBlock(src, start)
		p.mu.Lock()
		if len(p.cache) >= maxCache {
			p.old, p.cache = p.cache, map[uint64]*cached{}
		}
		p.cache[h] = c
		p.mu.Unlock()
	}
	var b *Block
	if c.block != nil {
		if c.at == start {
			// same place: share the tree, copy the header (Parse sets
			// the namespace and evaluation order per file)
			nb := *c.block
			b = &nb
		} else {
			b = c.block.shifted(start - c.at)
		}
	}
	errs := make([]Error, len(c.errs))
	for i, e := range c.errs {
		errs[i] = Error{Span: e.Span.shift(start), Message: e.Message}
	}
	return b, c.broken, errs
}

// parseBlock parses one chunk, the text at offset at of its file: the
// tree's spans are file offsets (so the cache can hand out the tree
// itself while the chunk stays in place), its errors' spans are relative
// to the chunk. A chunk with a syntax error gives its header alone
// (broken), when the header was read.
func parseBlock(src []byte, at int) (b *Block, broken bool, errs []Error) {
	defer func() {
		if r := recover(); r != nil {
			b, broken = nil, false
			errs = []Error{{Span: Span{0, min(1, len(src))}, Message: fmt.Sprintf("syntax error (%v)", r)}}
		}
	}()
	toks, lerr := lex(src, 0, len(src), nil)
	if lerr != nil {
		// cf-promises lexes on demand: a syntax error in the tokens
		// before the one the lexer cannot read is the error it reports.
		if e, ok := errorBefore(src, toks, lerr.at); ok {
			return header(src, toks, at), true, []Error{e}
		}
		return header(src, toks, at), true, []Error{{Span: Span{lerr.at, lerr.at + 1}, Message: lerr.msg}}
	}
	pl, err := lexer.Upgrade(&tokenStream{text: src, toks: toks, eof: len(src), base: at})
	if err != nil {
		return nil, false, []Error{{Span: Span{0, 1}, Message: err.Error()}}
	}
	g, err := blockParser().ParseFromLexer(pl)
	if err != nil {
		// Again at chunk offsets, for the error's words and place.
		pl, _ = lexer.Upgrade(&tokenStream{text: src, toks: toks, eof: len(src)})
		_, err = blockParser().ParseFromLexer(pl)
		return header(src, toks, at), true, []Error{convertError(src, toks, refineError(src, toks, err))}
	}
	b = convert(g, &errs)
	for i := range errs {
		errs[i].Span = errs[i].Span.shift(-at)
	}
	return b, false, errs
}

// errorBefore parses the tokens lexed before a lexer error at offset
// stop and returns the syntax error they hold, if the parser stops at one
// of them rather than at their end (where the lexer error comes first).
func errorBefore(src []byte, toks []tok, stop int) (Error, bool) {
	pl, err := lexer.Upgrade(&tokenStream{text: src, toks: toks, eof: stop})
	if err != nil {
		return Error{}, false
	}
	if _, err = blockParser().ParseFromLexer(pl); err == nil {
		return Error{}, false
	}
	err = refineError(src, toks, err)
	var ut *participle.UnexpectedTokenError
	if !errors.As(err, &ut) || ut.Unexpected.Type == lexer.EOF || ut.Unexpected.Pos.Offset >= stop {
		return Error{}, false
	}
	return convertError(src, toks, err), true
}

// header is the block a chunk with a syntax error starts: its keyword,
// type and name when those three tokens came first (cf3parse.y has read
// them, and defined the bundle or body, before it meets the error), else
// nil. Its span is the chunk's; it has no parameters and no content.
func header(src []byte, toks []tok, at int) *Block {
	if len(toks) < 3 || toks[0].typ != tKeyword || toks[1].typ != tIdent || toks[2].typ != tIdent {
		return nil
	}
	w := func(t tok) Word { return Word{Text: string(src[t.start:t.end]), Span: Span{at + t.start, at + t.end}} }
	return &Block{Kind: w(toks[0]).Text, Type: w(toks[1]), Name: w(toks[2]), Span: Span{at + toks[0].start, at + len(src)}}
}

// refineError re-parses the statement where participle gave up (its
// lookahead backtracks out of a half-written promise and blames the
// promiser) to find the exact token that is wrong.
func refineError(src []byte, toks []tok, err error) error {
	var ut *participle.UnexpectedTokenError
	if !errors.As(err, &ut) {
		return err
	}
	k := -1
	for i, t := range toks {
		if t.start == ut.Unexpected.Pos.Offset {
			k = i
			break
		}
	}
	if k < 0 {
		return err
	}
	sub := func() *lexer.PeekingLexer {
		pl, _ := lexer.Upgrade(&tokenStream{text: src, toks: toks[k:], eof: len(src)})
		return pl
	}
	switch toks[k].typ {
	case tString:
		if _, e := promiseParser().ParseFromLexer(sub(), participle.AllowTrailing(true)); e != nil {
			// the promise parser backtracks out of a constraint whose
			// value is wrong and blames its name: parse the constraint
			if c := refineConstraint(src, toks, k, e); c != nil {
				return c
			}
			return e
		}
	case tIdent:
		// an attribute, when one may start here (after a statement)
		if k+1 < len(toks) && toks[k+1].typ == tFatArrow && statementStart(src, toks, k) {
			if _, e := attrParser().ParseFromLexer(sub(), participle.AllowTrailing(true)); e != nil {
				return e
			}
		}
	}
	return err
}

// statementStart tells whether a statement may start at toks[k].
func statementStart(src []byte, toks []tok, k int) bool {
	if k == 0 {
		return true
	}
	switch p := toks[k-1]; p.typ {
	case tClassGuard, tVarClass, tPromiseGuard:
		return true
	case tPunct:
		c := src[p.start]
		return c == ';' || c == '{'
	}
	return false
}

// refineConstraint re-parses the constraint (lval => rval) whose name err
// blames, and returns the error inside it, or nil. toks[k] is the
// promiser. The name is the culprit only when a constraint may start
// there: the promise up to it, completed by a well-formed constraint,
// parses (else the name itself is unexpected: `"x" string => "a" comment
// => ...` lacks a comma).
func refineConstraint(src []byte, toks []tok, k int, err error) error {
	var ut *participle.UnexpectedTokenError
	if !errors.As(err, &ut) {
		return nil
	}
	for i := k + 1; i < len(toks); i++ {
		t := toks[i]
		if t.start != ut.Unexpected.Pos.Offset {
			continue
		}
		if t.typ != tIdent || i+1 >= len(toks) || toks[i+1].typ != tFatArrow {
			return nil
		}
		const tail = ` a => "b";`
		text := append(append([]byte{}, src...), tail...)
		n := len(src)
		probe := append(append([]tok{}, toks[k:i]...),
			tok{tIdent, n + 1, n + 2}, tok{tFatArrow, n + 3, n + 5}, tok{tString, n + 6, n + 9}, tok{tPunct, n + 9, n + 10})
		pl, _ := lexer.Upgrade(&tokenStream{text: text, toks: probe, eof: len(text)})
		if _, e := promiseParser().ParseFromLexer(pl); e != nil {
			return nil
		}
		pl, _ = lexer.Upgrade(&tokenStream{text: src, toks: toks[i:], eof: len(src)})
		if _, e := consParser().ParseFromLexer(pl, participle.AllowTrailing(true)); e != nil {
			return e
		}
		return nil
	}
	return nil
}

func tokenWords(src []byte, t lexer.Token) string {
	if t.Type == lexer.EOF {
		return "end of block"
	}
	return t.Value
}

// convertError turns a participle error into cf-promises' words.
func convertError(src []byte, toks []tok, err error) Error {
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) {
		t := ut.Unexpected
		at := Span{t.Pos.Offset, t.Pos.Offset + len(t.Value)}
		if t.Type == lexer.EOF {
			at = Span{max(len(src)-1, 0), len(src)}
		}
		got := tokenWords(src, t)
		exp := ut.Expect
		if m := ut.Message(); exp == "" {
			if i := strings.Index(m, "(expected "); i >= 0 {
				exp = strings.TrimSuffix(m[i+len("(expected "):], ")")
			}
		}
		exp = strings.ReplaceAll(exp, `"`, "'")
		var msg string
		switch {
		case exp == "":
			msg = fmt.Sprintf("syntax error, got '%s'", got)
		case strings.Contains(exp, "GRval"):
			msg = fmt.Sprintf("Invalid r-value type '%s'", got)
		case strings.Contains(exp, "';'") && t.Type != lexer.EOF:
			if e, ok := afterPromiser(src, toks, t.Pos.Offset); ok {
				return e
			}
			if t.Value == "," {
				msg = fmt.Sprintf("Expected attribute, got '%s' (comma after promiser is not allowed since 3.5.0)", got)
				break
			}
			fallthrough
		case strings.Contains(exp, "';'"):
			msg = fmt.Sprintf("Expected ';', got '%s'", got)
		case strings.Contains(exp, "'}'"):
			msg = fmt.Sprintf("Expected '}', got '%s'", got)
		case strings.Contains(exp, "'=>'"):
			msg = fmt.Sprintf("Expected '=>', got '%s'", got)
		case strings.Contains(exp, "')'"):
			msg = fmt.Sprintf("Expected ')', got '%s'", got)
		case strings.Contains(exp, "'{'"):
			msg = fmt.Sprintf("Expected body open '{', wrong input '%s'", got)
		default:
			msg = fmt.Sprintf("syntax error, got '%s' (expected %s)", got, exp)
		}
		return Error{Span: at, Message: msg}
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		o := pe.Position().Offset
		return Error{Span: Span{o, min(o+1, len(src))}, Message: "syntax error: " + pe.Message()}
	}
	return Error{Span: Span{0, min(1, len(src))}, Message: "syntax error: " + err.Error()}
}

// afterPromiser words a promise statement's error at offset off as
// cf3parse.y does, where participle expected the statement's ';': an
// attribute name right after the promiser (or its stakeholder) begins
// the first constraint, so the token after it is wrong ("Expected '=>',
// got '"x"'" for `"abc" comment "x";`); one after a constraint lacks the
// comma before it ("Check previous line, Expected ',', got 'comment'");
// after a comma that follows a constraint, the next attribute name lacks
// its '=>'; a string after a constraint is the next promiser, the ';'
// missing ("Check previous line, Expected ';', got '"again"'"). ok is
// false where none of these holds.
func afterPromiser(src []byte, toks []tok, off int) (Error, bool) {
	i := slices.IndexFunc(toks, func(t tok) bool { return t.start == off })
	if i < 0 {
		return Error{}, false
	}
	// the statement's first token: after ';', '{' or a guard at depth 0
	s, depth := 0, 0
back:
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch t.typ {
		case tPromiseGuard, tClassGuard, tVarClass:
			s = j + 1
			break back
		case tPunct:
			switch src[t.start] {
			case ')', '}':
				depth++
			case '(':
				depth--
			case '{':
				if depth == 0 {
					s = j + 1
					break back
				}
				depth--
			case ';':
				if depth == 0 {
					s = j + 1
					break back
				}
			}
		}
	}
	if s >= i || toks[s].typ != tString {
		return Error{}, false // not a promise's statement
	}
	seenFat := slices.ContainsFunc(toks[s:i], func(t tok) bool { return t.typ == tFatArrow })
	text := func(t tok) string { return string(src[t.start:t.end]) }
	fatAfter := func(k int) (Error, bool) {
		if k+1 >= len(toks) || toks[k].typ != tIdent || toks[k+1].typ == tFatArrow {
			return Error{}, false
		}
		n := toks[k+1]
		return Error{Span: Span{n.start, n.end}, Message: fmt.Sprintf("Expected '=>', got '%s'", text(n))}, true
	}
	t := toks[i]
	switch {
	case t.typ == tIdent && !seenFat:
		return fatAfter(i)
	case t.typ == tIdent:
		return Error{Span: Span{t.start, t.end}, Message: fmt.Sprintf("Check previous line, Expected ',', got '%s'", text(t))}, true
	case t.typ == tPunct && src[t.start] == ',' && seenFat:
		return fatAfter(i + 1)
	case t.typ == tString && seenFat:
		// the next promise, its ';' missing
		return Error{Span: Span{t.start, t.end}, Message: fmt.Sprintf("Check previous line, Expected ';', got '%s'", text(t))}, true
	}
	return Error{}, false
}

func tokSpan(t lexer.Token) Span { return Span{t.Pos.Offset, t.Pos.Offset + len(t.Value)} }
func word(t lexer.Token) Word    { return Word{Text: t.Value, Span: tokSpan(t)} }

func convert(g *gBlock, errs *[]Error) *Block {
	b := &Block{
		Kind: g.Kind.Value,
		Type: word(g.Type),
		Name: word(g.Name),
		Span: Span{g.Kind.Pos.Offset, g.Close.Pos.Offset + 1},
		Open: tokSpan(g.Open),
	}
	if g.Params != nil {
		for _, t := range g.Params.Names {
			b.Params = append(b.Params, word(t.Tok))
		}
	}
	var sec *Section
	ctx, ctxSpan, varCtx := "any", Span{}, false
	for _, it := range g.Items {
		switch {
		case it.Guard.Value != "":
			if b.Kind != "bundle" {
				*errs = append(*errs, Error{Span: tokSpan(it.Guard), Message: fmt.Sprintf("Expected attribute, got '%s'", it.Guard.Value)})
				continue
			}
			sp := tokSpan(it.Guard)
			sec = &Section{Type: Word{Text: strings.TrimSuffix(it.Guard.Value, ":"), Span: Span{sp.Start, sp.End - 1}}, Span: sp}
			b.Sections = append(b.Sections, sec)
			ctx, ctxSpan, varCtx = "any", Span{}, false
		case it.Class.Value != "":
			sp := tokSpan(it.Class)
			ctx = strings.TrimSuffix(it.Class.Value, "::")
			ctxSpan = Span{sp.Start, sp.Start + len(ctx)}
			varCtx = false
			if b.Kind == "bundle" && sec == nil {
				*errs = append(*errs, Error{Span: sp, Message: fmt.Sprintf("Expected promise type, got '%s'", it.Class.Value)})
			}
		case it.VarClass.Value != "":
			sp := tokSpan(it.VarClass)
			v := strings.TrimSuffix(it.VarClass.Value, "::")
			ctx = v[1 : len(v)-1]
			ctxSpan = Span{sp.Start + 1, sp.Start + len(v) - 1}
			varCtx = true
			if b.Kind == "bundle" && sec == nil {
				*errs = append(*errs, Error{Span: sp, Message: fmt.Sprintf("Expected promise type, got '%s'", it.VarClass.Value)})
			}
		case it.Promise != nil:
			gp := it.Promise
			if b.Kind != "bundle" {
				*errs = append(*errs, Error{Span: tokSpan(gp.Promiser), Message: fmt.Sprintf("Expected attribute, got '%s'", gp.Promiser.Value)})
				continue
			}
			if sec == nil {
				*errs = append(*errs, Error{Span: tokSpan(gp.Promiser), Message: fmt.Sprintf("Expected promise type, got '%s'", gp.Promiser.Value)})
				continue
			}
			p := &Promise{
				Promiser:     Unquote(gp.Promiser.Value),
				PromiserSpan: tokSpan(gp.Promiser),
				Context:      ctx, ContextSpan: ctxSpan, VarContext: varCtx,
				Span: Span{gp.Promiser.Pos.Offset, gp.End.Pos.Offset + 1},
			}
			if gp.Promisee != nil {
				p.Promisee = rval(gp.Promisee)
			}
			for _, c := range gp.Cons {
				r := rval(c.Rval)
				p.Constraints = append(p.Constraints, &Constraint{Lval: word(c.Lval), Rval: r, Context: ctx, Span: Span{c.Lval.Pos.Offset, r.Span.End}})
			}
			sec.Promises = append(sec.Promises, p)
			sec.Span.End = p.Span.End
		case it.Attr != nil:
			if b.Kind == "bundle" {
				*errs = append(*errs, Error{Span: tokSpan(it.Attr.Lval), Message: fmt.Sprintf("Expected promiser string, got '%s'", it.Attr.Lval.Value)})
				continue
			}
			r := rval(it.Attr.Rval)
			b.Attrs = append(b.Attrs, &Constraint{Lval: word(it.Attr.Lval), Rval: r, Context: ctx, ContextSpan: ctxSpan, VarContext: varCtx,
				Span: Span{it.Attr.Lval.Pos.Offset, it.Attr.End.Pos.Offset + 1}})
		}
	}
	return b
}

func scalar(t lexer.Token) *Rval {
	r := &Rval{Span: tokSpan(t)}
	r.NameSpan = r.Span
	switch t.Type {
	case tString:
		r.Kind, r.Value = String, Unquote(t.Value)
	case tNakedVar:
		r.Kind, r.Value = NakedVar, t.Value
	default:
		r.Kind, r.Value = Ident, t.Value
	}
	return r
}

func call(c *gCall) *Rval {
	r := &Rval{Kind: Call, Value: c.Name.Value, NameSpan: tokSpan(c.Name), Span: Span{c.Name.Pos.Offset, c.Close.Pos.Offset + 1}}
	for _, a := range c.Args {
		r.Items = append(r.Items, arg(a))
	}
	return r
}

func arg(a *gArg) *Rval {
	switch {
	case a.Call != nil:
		return call(a.Call)
	case a.String.Type != 0:
		return scalar(a.String)
	}
	return scalar(a.Scalar)
}

func rval(g *gRval) *Rval {
	switch {
	case g.Call != nil:
		return call(g.Call)
	case g.List != nil:
		r := &Rval{Kind: List, Span: Span{g.List.Open.Pos.Offset, g.List.Close.Pos.Offset + 1}}
		r.NameSpan = r.Span
		for _, a := range g.List.Items {
			r.Items = append(r.Items, arg(a))
		}
		return r
	case g.String.Type != 0:
		return scalar(g.String)
	}
	return scalar(g.Scalar)
}

// Unquote decodes a quoted string as cf3lex.l's DeEscapeQuotedString does:
// \\, \" and \' lose their backslash, a backslash-newline disappears,
// every other escape stays as written.
func Unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	q := s[0]
	if q != '"' && q != '\'' && q != '`' {
		return s
	}
	body := s[1 : len(s)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	var sb strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\\' && i+1 < len(body) {
			switch body[i+1] {
			case '\n':
				i++
				continue
			case '\\', '"', '\'':
				i++
				sb.WriteByte(body[i])
				continue
			}
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// isKeywordAt reports whether text[i:] starts with bundle/body/promise
// followed by a non-word byte.
func isKeywordAt(text []byte, i int) int {
	for _, kw := range [...]string{"bundle", "body", "promise"} {
		if i+len(kw) <= len(text) && string(text[i:i+len(kw)]) == kw && (i+len(kw) == len(text) || !isWord(text[i+len(kw)])) {
			return len(kw)
		}
	}
	return 0
}

// splitChunks finds the top-level blocks: from a bundle/body/promise
// keyword to its balanced closing brace. A block whose braces never
// balance ends before the next keyword at the start of a line, so one
// broken block never swallows the rest of the file. Text between blocks
// that is not a comment is a syntax error.
func splitChunks(text []byte, f *File) []chunk {
	var out []chunk
	i, n := 0, len(text)
	for i < n {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			i++
			continue
		}
		if c == '#' {
			for i < n && text[i] != '\n' {
				i++
			}
			continue
		}
		if k := isKeywordAt(text, i); k > 0 {
			end := blockEnd(text, i+k)
			out = append(out, chunk{i, end})
			i = end
			continue
		}
		// garbage: report the first token and skip to the next line that
		// starts with a keyword.
		j := i
		for j < n && text[j] != '\n' && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if j == i {
			j = i + 1
		}
		f.Errors = append(f.Errors, Error{Span: Span{i, j}, Message: fmt.Sprintf("Expected 'bundle' or 'body' keyword, wrong input '%s'", text[i:j])})
		i = nextKeywordLine(text, j)
	}
	return out
}

func nextKeywordLine(text []byte, i int) int {
	for i < len(text) {
		nl := indexByte(text, i, '\n')
		if nl < 0 {
			return len(text)
		}
		i = nl + 1
		if isKeywordAt(text, i) > 0 {
			return i
		}
	}
	return len(text)
}

func indexByte(text []byte, from int, c byte) int {
	for j := from; j < len(text); j++ {
		if text[j] == c {
			return j
		}
	}
	return -1
}

func blockEnd(text []byte, i int) int {
	n := len(text)
	depth := 0
	opened := false
	for i < n {
		c := text[i]
		switch c {
		case '#':
			for i < n && text[i] != '\n' {
				i++
			}
			continue
		case '"', '\'', '`':
			m := scanString(text, i, n)
			if m < 0 {
				// runaway string: end the block at the next keyword line
				return nextKeywordLine(text, i)
			}
			i += m
			continue
		case '{':
			depth++
			opened = true
		case '}':
			depth--
			if depth <= 0 && opened {
				return i + 1
			}
		case '\n':
			if opened && depth > 0 && isKeywordAt(text, i+1) > 0 {
				return i + 1
			}
		}
		i++
	}
	return n
}

// maskMacros blanks out the lines an @if/@else/@endif leaves out for the
// given version (and the macro lines themselves), keeping offsets.
func maskMacros(text []byte, version string) ([]byte, []Span, []Error) {
	if !(len(text) > 0 && text[0] == '@') && !containsNewlineAt(text) {
		return text, nil, nil
	}
	out := []byte(nil)
	var ignored []Span
	var errs []Error
	blank := func(s, e int) {
		if out == nil {
			out = append([]byte(nil), text...)
		}
		for k := s; k < e; k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
		if len(ignored) > 0 && ignored[len(ignored)-1].End >= s-1 {
			ignored[len(ignored)-1].End = e
		} else {
			ignored = append(ignored, Span{s, e})
		}
	}
	depth := 0
	skipping := false
	ifStart := 0
	for ls := 0; ls < len(text); {
		le := indexByte(text, ls, '\n')
		if le < 0 {
			le = len(text)
		}
		line := string(text[ls:le])
		line = strings.TrimRight(line, "\r")
		isMacro := strings.HasPrefix(line, "@")
		switch {
		case isMacro && strings.HasPrefix(line, "@if "):
			if skipping {
				blank(ls, le)
				break
			}
			if depth > 0 {
				errs = append(errs, Error{Span: Span{ls, le}, Message: "fatal: nested @if macros are not allowed"})
				blank(ls, le)
				break
			}
			ok, known := evalMacro(strings.TrimSpace(line[4:]), version)
			if !known {
				errs = append(errs, Error{Span: Span{ls, le}, Message: fmt.Sprintf("Unknown macro '%s'", line)})
			}
			depth++
			ifStart = ls
			skipping = !ok
			blank(ls, le)
		case isMacro && strings.HasPrefix(line, "@else"):
			if depth <= 0 {
				errs = append(errs, Error{Span: Span{ls, le}, Message: "fatal: @else macro without a matching @if are not allowed"})
			}
			skipping = !skipping
			blank(ls, le)
		case isMacro && strings.HasPrefix(line, "@endif"):
			if depth <= 0 {
				errs = append(errs, Error{Span: Span{ls, le}, Message: "fatal: @endif macros without a matching @if are not allowed"})
			} else {
				depth--
			}
			skipping = false
			blank(ls, le)
		case skipping:
			blank(ls, le)
		}
		ls = le + 1
	}
	if depth > 0 {
		errs = append(errs, Error{Span: Span{ifStart, ifStart + 3}, Message: "EOF seen while @if was waiting for @endif"})
	}
	if out == nil {
		out = text
	}
	return out, ignored, errs
}

func containsNewlineAt(text []byte) bool {
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '\n' && text[i+1] == '@' {
			return true
		}
	}
	return false
}

// evalMacro evaluates the condition of `@if COND` for a version.
func evalMacro(cond, version string) (ok, known bool) {
	open := strings.IndexByte(cond, '(')
	if open < 0 || !strings.HasSuffix(cond, ")") {
		return false, false
	}
	fn, arg := cond[:open], cond[open+1:len(cond)-1]
	if fn == "feature" {
		return knownFeatures[arg], true
	}
	if fn == "between_versions" {
		a, b, found := strings.Cut(arg, ",")
		if !found {
			return false, false
		}
		c1, ok1 := compareVersion(version, strings.TrimSpace(a))
		c2, ok2 := compareVersion(version, strings.TrimSpace(b))
		return ok1 && ok2 && c1 >= 0 && c2 <= 0, ok1 && ok2
	}
	c, valid := compareVersion(version, strings.TrimSpace(arg))
	if !valid {
		return false, false
	}
	switch fn {
	case "minimum_version":
		return c >= 0, true
	case "maximum_version":
		return c <= 0, true
	case "before_version":
		return c < 0, true
	case "at_version":
		return c == 0, true
	case "after_version":
		return c > 0, true
	}
	return false, false
}

// compareVersion compares version with target on the components target
// has (3.21.2 is "at" 3.21).
func compareVersion(version, target string) (int, bool) {
	v := strings.Split(version, ".")
	t := strings.Split(target, ".")
	if len(t) == 0 || len(t) > 3 {
		return 0, false
	}
	for i, ts := range t {
		tn, err := strconv.Atoi(ts)
		if err != nil {
			return 0, false
		}
		vn := 0
		if i < len(v) {
			vn, _ = strconv.Atoi(v[i])
		}
		if vn != tn {
			if vn < tn {
				return -1, true
			}
			return 1, true
		}
	}
	return 0, true
}
