package salt

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// parseJinja reads a template into the tree the renderer walks: each
// top-level chunk (a text, an output, a statement, a whole block) is
// parsed by the grammar on its own and cached by its text, so an edit
// re-parses the chunks it touched, and a chunk that does not parse costs
// one error and its own output (it renders as unknown text), never the
// rest of the template.
func parseJinja(src []byte) ([]jnode, []Error) {
	chunks, errs := lexJinja(src)
	var out []jnode
	for _, c := range chunks {
		if len(c.toks) == 1 && c.toks[0].Type == jtText {
			t := c.toks[0]
			out = append(out, jText{t.Pos.Offset, t.Pos.Offset + len(t.Value)})
			continue
		}
		nodes, err := parseChunkCached(src, c)
		if err != nil {
			if !slices.ContainsFunc(errs, func(e Error) bool { return e.unknownTag && e.Start >= c.start && e.Start < c.end }) {
				errs = append(errs, *err)
			}
			out = append(out, jOpaque{c.start, c.end})
			continue
		}
		out = append(out, nodes...)
	}
	return out, errs
}

// jinjaCache holds converted chunks by text, positions relative to the
// chunk. Templates are small and chunks repeat between files (the same
// `{% from ... import ... %}` header), so one process-wide cache serves
// every file.
var jinjaCache = struct {
	sync.Mutex
	m    map[uint64]jcached
	seed maphash.Seed
}{m: map[uint64]jcached{}, seed: maphash.MakeSeed()}

type jcached struct {
	text  string
	nodes []jnode
	err   *Error
}

const jinjaCacheMax = 20000

func parseChunkCached(src []byte, c jchunk) ([]jnode, *Error) {
	text := src[c.start:c.end]
	h := maphash.Bytes(jinjaCache.seed, text)
	// Synthetic closing tags make the same text parse differently.
	h ^= uint64(len(c.toks))
	jinjaCache.Lock()
	e, ok := jinjaCache.m[h]
	jinjaCache.Unlock()
	if !ok || e.text != string(text) {
		nodes, err := parseChunk(src, c)
		e = jcached{text: string(text), nodes: shiftNodes(nodes, -c.start), err: err}
		if err != nil {
			ee := *err
			ee.Span = Span{ee.Span.Start - c.start, ee.Span.End - c.start}
			e.err = &ee
		}
		jinjaCache.Lock()
		if len(jinjaCache.m) >= jinjaCacheMax {
			jinjaCache.m = map[uint64]jcached{}
		}
		jinjaCache.m[h] = e
		jinjaCache.Unlock()
		if err != nil {
			return nil, err
		}
		return nodes, nil // already where the chunk is
	}
	if e.err != nil {
		err := *e.err
		err.Span = Span{err.Span.Start + c.start, err.Span.End + c.start}
		return nil, &err
	}
	return shiftNodes(e.nodes, c.start), nil
}

// parseChunk runs the grammar on one chunk.
func parseChunk(src []byte, c jchunk) (nodes []jnode, err *Error) {
	defer func() {
		if r := recover(); r != nil {
			nodes, err = nil, &Error{Span: Span{c.start, min(c.start+2, c.end)}, Severity: 1, Msg: fmt.Sprintf("Jinja syntax error (%v)", r)}
		}
	}()
	pl, lerr := lexer.Upgrade(&jinjaStream{toks: c.toks, eof: c.end})
	if lerr != nil {
		return nil, &Error{Span: Span{c.start, c.end}, Severity: 1, Msg: lerr.Error()}
	}
	g, perr := jinjaParser().ParseFromLexer(pl)
	if perr != nil {
		return nil, jinjaError(src, c, perr)
	}
	cv := &jconv{src: src}
	return cv.nodes(g.Nodes), nil
}

// jinjaError words a grammar error as Jinja does.
func jinjaError(src []byte, c jchunk, err error) *Error {
	var pe participle.Error
	if !errors.As(err, &pe) {
		return &Error{Span: Span{c.start, c.end}, Severity: 1, Msg: "Jinja syntax error: " + err.Error()}
	}
	off := pe.Position().Offset
	for i := range c.toks {
		// a character jinja2's lexer has no token for: it fails there,
		// naming its place in the template ("unexpected char '#' at
		// 452", the index in the text)
		t := &c.toks[i]
		if t.Type == jtOp && t.Pos.Offset <= off && !jinjaOperator[t.Value] {
			return &Error{Span: Span{t.Pos.Offset, t.Pos.Offset + len(t.Value)}, Severity: 1,
				Msg: fmt.Sprintf("Jinja syntax error: unexpected char '%s' at %d", t.Value, utf8.RuneCount(src[:t.Pos.Offset]))}
		}
	}
	if t, msg := plainError(c.toks, off); t != nil {
		// participle backtracks out of a postfix or an operand and
		// blames where that began (`{{ x[1 }}` at the '['); jinja2
		// fails where the text breaks
		at := Span{t.Pos.Offset, t.Pos.Offset + max(len(t.Value), 1)}
		return &Error{Span: at, Severity: 1, Msg: "Jinja syntax error: " + msg}
	}
	var tok *lexer.Token
	inOutput := false
	for i := range c.toks {
		t := &c.toks[i]
		if t.Pos.Offset > off {
			break
		}
		switch t.Type {
		case jtVarOpen:
			inOutput = true
		case jtTagOpen:
			inOutput = false
		}
		if t.Pos.Offset == off {
			tok = t
			break
		}
	}
	at := Span{off, min(off+1, len(src))}
	got := "end of template"
	if tok != nil {
		at = Span{off, off + max(len(tok.Value), 1)}
		got = tok.Value
		switch tok.Type {
		case jtVarClose:
			got = "end of print statement"
		case jtTagClose:
			got = "end of statement block"
		}
	}
	// the brackets open before tok in its tag or output
	var open []string
	if tok != nil {
		for i := range c.toks {
			t := &c.toks[i]
			if t == tok {
				break
			}
			switch {
			case t.Type == jtVarOpen || t.Type == jtTagOpen:
				open = open[:0]
			case t.Type == jtOp && (t.Value == "(" || t.Value == "[" || t.Value == "{"):
				open = append(open, t.Value)
			case t.Type == jtOp && (t.Value == ")" || t.Value == "]" || t.Value == "}") && len(open) > 0:
				open = open[:len(open)-1]
			}
		}
	}
	closer := map[string]string{"(": ")", "[": "]", "{": "}"}
	top := ""
	if len(open) > 0 {
		top = open[len(open)-1]
	}
	isCloser := tok != nil && (tok.Type == jtVarClose || tok.Type == jtTagClose ||
		tok.Type == jtOp && (tok.Value == ")" || tok.Value == "]" || tok.Value == "}"))
	var msg string
	switch {
	case tok != nil && tok.Type == jtTag:
		msg = fmt.Sprintf("Encountered unknown tag '%s'.", tok.Value)
	case top != "" && isCloser && endsExpr(c.toks, tok) && (tok.Type != jtOp || tok.Value != closer[top]):
		// a bracket left open (`{{ a[1 }}`): jinja2 names the closing
		// character it met, '}' for the end of the tag
		got := tok.Value
		if tok.Type != jtOp {
			got = "}"
		}
		msg = fmt.Sprintf("unexpected '%s', expected '%s'", got, closer[top])
	case top == "{" && endsExpr(c.toks, tok) && !dictKeyDone(c.toks, tok) && !(tok.Type == jtOp && tok.Value == ":"):
		// a dict literal's key and no ':' after it (`{% set d = {{ a }}
		// %}` reads `{ a }` as a dict: saltstack-formulas/
		// prometheus-formula's textfile collectors)
		msg = fmt.Sprintf("expected token ':', got '%s'", jinjaTokenName(tok))
	case (top == "[" || top == "(" || top == "{" && dictKeyDone(c.toks, tok)) && endsExpr(c.toks, tok) && (tok.Type == jtName || tok.Type == jtString || tok.Type == jtNumber):
		// two items without the ',' between them
		msg = fmt.Sprintf("expected token ',', got '%s'", jinjaTokenName(tok))
	case (tok != nil && (tok.Type == jtVarClose || tok.Type == jtTagClose) || tok == nil) && afterOperator(c.toks, tok):
		// an operator and no operand after it (`{% if a == %}`)
		msg = fmt.Sprintf("unexpected '%s'", got)
	case tok != nil && (tok.Type == jtVarClose || tok.Type == jtTagClose), tok == nil:
		msg = fmt.Sprintf("Expected an expression, got '%s'", got)
	case inOutput:
		msg = fmt.Sprintf("expected token 'end of print statement', got '%s'", got)
	case endsExpr(c.toks, tok) && (tok.Type == jtName || tok.Type == jtString || tok.Type == jtNumber):
		// a statement whose expression is whole, and a name or literal
		// after it: jinja2 expects the tag's end there (`{% if a b %}`,
		// `{% set x salt['a']() %}`), naming a literal by its kind
		switch tok.Type {
		case jtString:
			got = "string"
		case jtNumber:
			got = "integer"
			if strings.ContainsAny(tok.Value, ".eE") {
				got = "float"
			}
		}
		msg = fmt.Sprintf("expected token 'end of statement block', got '%s'", got)
	default:
		msg = fmt.Sprintf("unexpected '%s'", got)
	}
	if at.End > len(src) {
		at.End = len(src)
	}
	if at.Start > at.End {
		at.Start = at.End
	}
	return &Error{Span: at, Severity: 1, Msg: "Jinja syntax error: " + msg}
}

// unclosedTagError is jinja2's error for a `{{` or `{%` opened at start
// whose closing never comes: its lexer reads on, over the lines after it,
// as the tag's expression, and the parser fails at the first token that
// cannot go on with it ("expected token 'end of print statement', got
// ':'" for wuxxin/salt-shared's `rclone-v{{ settings['version']-linux-
// amd64/rclone` and the YAML after it), or at the end of the template
// ("unexpected end of template, expected 'end of statement block'." for
// a last `{% endfor`). The rest of the template stays text here, so the
// states after it are still read. A comment left open is jinja2's
// "Missing end of comment tag".
func unclosedTagError(src []byte, start, in int, open byte) Error {
	n := len(src)
	whole := Span{start, min(start+2, n)}
	if open == '#' {
		return Error{Span: whole, Severity: 1, Msg: "Jinja syntax error: Missing end of comment tag"}
	}
	if in < n && (src[in] == '-' || src[in] == '+') {
		in++
	}
	closeName := "end of print statement"
	first := jtoken(jtVarOpen, src, start, in)
	stmt := open == '%'
	if stmt {
		closeName = "end of statement block"
		first = jtoken(jtTagOpen, src, start, in)
	}
	toks := lexInside(src, in, n, []lexer.Token{first}, stmt)
	eof := fmt.Sprintf("Jinja syntax error: unexpected end of template, expected '%s'.", closeName)
	if stmt && len(toks) > 1 && toks[1].Type == jtTag && (strings.HasPrefix(toks[1].Value, "end") || toks[1].Value == "else") {
		// the end of a block: its parser takes the word and wants the
		// tag's end right after it
		if len(toks) == 2 {
			return Error{Span: whole, Severity: 1, Msg: eof}
		}
		t := toks[2]
		return Error{Span: Span{t.Pos.Offset, t.Pos.Offset + max(len(t.Value), 1)}, Severity: 1,
			Msg: fmt.Sprintf("Jinja syntax error: expected token '%s', got '%s'", closeName, jinjaTokenName(&t))}
	}
	if stmt && len(toks) > 1 && toks[1].Type == jtTag && !jinjaTags[toks[1].Value] && !jinjaEndTags[toks[1].Value] {
		// a tag no extension defines: jinja2's parser fails at its name
		// before its lexer reads on (bahazero901/saltstack's ceph/init.sls:
		// `{% pillar['ceph'].get` and no `%}`, "Encountered unknown tag
		// 'pillar'.", not the '$' further down); lexJinja adds what the
		// blocks around it wait for
		t := toks[1]
		return Error{Span: Span{t.Pos.Offset, t.Pos.Offset + len(t.Value)}, Severity: 1,
			Msg: fmt.Sprintf("Jinja syntax error: Encountered unknown tag '%s'.", t.Value), unknownTag: true}
	}
	c := jchunk{toks: toks, start: start, end: n}
	if _, err := parseChunk(src, c); err != nil {
		if err.Span.Start < n {
			return *err
		}
		// at the end of the template: the expression is whole, or not
		if len(toks) > 1 && endsExpr(toks, nil) {
			return Error{Span: whole, Severity: 1, Msg: eof}
		}
		return Error{Span: whole, Severity: 1, Msg: "Jinja syntax error: unexpected 'end of template'"}
	}
	return Error{Span: whole, Severity: 1, Msg: eof}
}

// jinjaTokenName is how jinja2's messages name a token: literals by
// their kind, the rest as written.
func jinjaTokenName(tok *lexer.Token) string {
	switch tok.Type {
	case jtString:
		return "string"
	case jtNumber:
		if strings.ContainsAny(tok.Value, ".eE") {
			return "float"
		}
		return "integer"
	case jtVarClose:
		return "end of print statement"
	case jtTagClose:
		return "end of statement block"
	}
	return tok.Value
}

// dictKeyDone: in the dict literal open before tok, the current item
// already has its ':' (tok follows a value, not a key).
func dictKeyDone(toks []lexer.Token, tok *lexer.Token) bool {
	depth := 0
	for i := len(toks) - 1; i >= 0; i-- {
		if &toks[i] != tok {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			t := toks[j]
			if t.Type != jtOp {
				continue
			}
			switch t.Value {
			case ")", "]", "}":
				depth++
			case "(", "[":
				if depth == 0 {
					return false
				}
				depth--
			case "{":
				if depth == 0 {
					return false
				}
				depth--
			case ":":
				if depth == 0 {
					return true
				}
			case ",":
				if depth == 0 {
					return false
				}
			}
		}
		return false
	}
	return false
}

// endsExpr: the token before tok in toks can end an expression (a name,
// a literal, a closing bracket), so tok cannot continue it.
func endsExpr(toks []lexer.Token, tok *lexer.Token) bool {
	if tok == nil {
		// (the end: the last token)
		if len(toks) == 0 {
			return false
		}
		return endsExprTok(toks[len(toks)-1])
	}
	for i := range toks {
		if &toks[i] != tok {
			continue
		}
		if i == 0 {
			return false
		}
		return endsExprTok(toks[i-1])
	}
	return false
}

// jinjaOperator are the operators of jinja2's lexer (lexer.py operators).
var jinjaOperator = map[string]bool{
	"+": true, "-": true, "/": true, "//": true, "*": true, "%": true, "**": true, "~": true,
	"[": true, "]": true, "(": true, ")": true, "{": true, "}": true, "==": true, "!=": true,
	">": true, ">=": true, "<": true, "<=": true, "=": true, ".": true, ":": true, "|": true,
	",": true, ";": true,
}

// plainError finds, in the tag or output holding the token at off, a
// break jinja2 names whatever the grammar backtracked to: a bracket the
// tag's end (or another closer) leaves open, "unexpected '}', expected
// ']'", and an operator with the tag's end after it, "unexpected 'end of
// print statement'".
func plainError(toks []lexer.Token, off int) (*lexer.Token, string) {
	closer := map[string]string{"(": ")", "[": "]", "{": "}"}
	var open []string
	var keyed []bool // per open '{': its current item has its ':'
	var items []int  // per open bracket: tokens in its current item
	in := false      // in the tag or output holding off
	output := false  // that is an output, {{ }}
	for i := range toks {
		t := &toks[i]
		if len(items) > 0 && !(t.Type == jtOp && (t.Value == "," || t.Value == ")" || t.Value == "]" || t.Value == "}")) {
			items[len(items)-1]++
		}
		switch {
		case t.Type == jtVarOpen || t.Type == jtTagOpen:
			open, keyed, items = open[:0], keyed[:0], items[:0]
			in, output = false, t.Type == jtVarOpen
			for j := i + 1; j < len(toks); j++ {
				if toks[j].Type == jtVarClose || toks[j].Type == jtTagClose {
					in = toks[j].Pos.Offset >= off && t.Pos.Offset <= off
					break
				}
			}
		case !in:
		case output && len(open) == 0 && i > 0 && (toks[i-1].Type == jtString || toks[i-1].Type == jtNumber) &&
			(t.Type == jtNumber || t.Type == jtName && !outputKeywords[t.Value]):
			// a literal, then a name or number: jinja2 wants the end of
			// the output there (lkubb/salt-tool-macos-formula's
			// `{{ ".join(corner.split("_") ...) }}`: the string ends
			// before `_`; participle backtracked to the `{{`)
			return t, fmt.Sprintf("expected token 'end of print statement', got '%s'", t.Value)
		case t.Type == jtOp && (t.Value == "(" || t.Value == "[" || t.Value == "{"):
			open, keyed, items = append(open, t.Value), append(keyed, false), append(items, 0)
		case t.Type == jtOp && t.Value == ":" && len(open) > 0 && open[len(open)-1] == "{":
			keyed[len(keyed)-1] = true
		case t.Type == jtOp && (t.Value == "," || t.Value == "}") && len(open) > 0 && open[len(open)-1] == "{" && !keyed[len(keyed)-1] && items[len(items)-1] > 0:
			// a dict literal's key with no ':' after it (`{{ x }}`
			// inside a tag reads as a dict holding a dict)
			return t, fmt.Sprintf("expected token ':', got '%s'", t.Value)
		case t.Type == jtOp && t.Value == "," && len(open) > 0:
			keyed[len(keyed)-1], items[len(items)-1] = false, 0
		case t.Type == jtOp && (t.Value == ")" || t.Value == "]" || t.Value == "}"):
			if len(open) == 0 {
				return nil, ""
			}
			if want := closer[open[len(open)-1]]; want != t.Value {
				if i > 0 && endsExprTok(toks[i-1]) {
					return t, fmt.Sprintf("unexpected '%s', expected '%s'", t.Value, want)
				}
				return nil, ""
			}
			open, keyed, items = open[:len(open)-1], keyed[:len(keyed)-1], items[:len(items)-1]
		case (t.Type == jtVarClose || t.Type == jtTagClose) && len(open) > 0 && open[len(open)-1] == "{":
			// jinja2 reads the tag's '}' as the brace's: no break here
			return nil, ""
		case t.Type == jtVarClose || t.Type == jtTagClose:
			if colon := colonBefore(toks, t); colon != nil && len(open) == 0 && t.Pos.Offset >= off {
				// a ':' after a whole expression where no body follows
				// (`{% include 'x': %}`, `{{ x: }}`): jinja2 wants the
				// end of the tag there (a body's opening tag may end in
				// ':', the grammar takes it)
				end := "end of statement block"
				if t.Type == jtVarClose {
					end = "end of print statement"
				}
				return colon, fmt.Sprintf("expected token '%s', got ':'", end)
			}
			if i > 0 && t.Pos.Offset >= off && afterOperator(toks, t) && toks[i-1].Type != jtTag {
				return t, fmt.Sprintf("unexpected '%s'", jinjaTokenName(t))
			}
			if len(open) > 0 && i > 0 && endsExprTok(toks[i-1]) {
				return t, fmt.Sprintf("unexpected '}', expected '%s'", closer[open[len(open)-1]])
			}
			return nil, ""
		}
	}
	return nil, ""
}

// outputKeywords: the names that may follow a whole expression in an
// output (tests, membership, logic, a conditional expression).
var outputKeywords = map[string]bool{"is": true, "in": true, "not": true, "and": true, "or": true, "if": true, "else": true}

// colonBefore is the ':' just before tok when a whole expression comes
// before it, else nil.
func colonBefore(toks []lexer.Token, tok *lexer.Token) *lexer.Token {
	for i := range toks {
		if &toks[i] == tok {
			if i >= 2 && toks[i-1].Type == jtOp && toks[i-1].Value == ":" && endsExprTok(toks[i-2]) {
				return &toks[i-1]
			}
			return nil
		}
	}
	return nil
}

// afterOperator: the token before tok (the last one when tok is nil)
// is an operator or a keyword that wants an operand, not the start of
// the tag or output.
func afterOperator(toks []lexer.Token, tok *lexer.Token) bool {
	prev := -1
	for i := range toks {
		if tok != nil && &toks[i] == tok {
			break
		}
		prev = i
	}
	if prev < 0 {
		return false
	}
	p := toks[prev]
	switch p.Type {
	case jtOp:
		return p.Value != ")" && p.Value != "]" && p.Value != "}"
	case jtName:
		return !endsExprTok(p)
	}
	return false
}

func endsExprTok(p lexer.Token) bool {
	switch p.Type {
	case jtName:
		switch p.Value {
		case "and", "or", "not", "in", "is", "if", "else":
			return false // an operator: its operand is still to come
		}
		return true
	case jtString, jtNumber:
		return true
	case jtOp:
		return p.Value == ")" || p.Value == "]" || p.Value == "}"
	}
	return false
}

// shiftNodes returns nodes with every source offset moved by d (a copy
// when d is not 0: cached nodes are shared).
func shiftNodes(ns []jnode, d int) []jnode {
	if d == 0 || ns == nil {
		return ns
	}
	out := make([]jnode, len(ns))
	for i, n := range ns {
		switch x := n.(type) {
		case jText:
			out[i] = jText{x.start + d, x.end + d}
		case jExpr:
			out[i] = jExpr{x.start + d, x.end + d, x.e}
		case jOpaque:
			out[i] = jOpaque{x.start + d, x.end + d}
		case jIf:
			y := x
			y.bodies = make([][]jnode, len(x.bodies))
			for k, b := range x.bodies {
				y.bodies[k] = shiftNodes(b, d)
			}
			y.spans = make([]Span, len(x.spans))
			for k, s := range x.spans {
				y.spans[k] = Span{s.Start + d, s.End + d}
			}
			y.at = make([]Span, len(x.at))
			for k, s := range x.at {
				if s != (Span{}) { // (an else's)
					y.at[k] = Span{s.Start + d, s.End + d}
				}
			}
			out[i] = y
		case jFor:
			y := x
			y.body, y.els = shiftNodes(x.body, d), shiftNodes(x.els, d)
			y.start, y.end = x.start+d, x.end+d
			y.bodySpan = Span{x.bodySpan.Start + d, x.bodySpan.End + d}
			y.elsSpan = Span{x.elsSpan.Start + d, x.elsSpan.End + d}
			y.iterAt = Span{x.iterAt.Start + d, x.iterAt.End + d}
			y.condAt = shiftSpan(x.condAt, d)
			out[i] = y
		case jSetBlock:
			out[i] = jSetBlock{x.name, shiftNodes(x.body, d)}
		case jSet:
			x.at = shiftSpan(x.at, d)
			out[i] = x
		case jDo:
			x.at = shiftSpan(x.at, d)
			out[i] = x
		case jScope:
			sets := make([]jSet, len(x.sets))
			for k, s := range x.sets {
				s.at = shiftSpan(s.at, d)
				sets[k] = s
			}
			out[i] = jScope{sets, shiftNodes(x.body, d)}
		default:
			out[i] = n
		}
	}
	return out
}

// shiftSpan moves a source span by d (a zero span, none, stays).
func shiftSpan(s Span, d int) Span {
	if s == (Span{}) {
		return s
	}
	return Span{s.Start + d, s.End + d}
}

// tupleSpan is the source of a tuple's items.
func tupleSpan(t *jgTuple) Span {
	if t == nil || len(t.Items) == 0 {
		return Span{}
	}
	return Span{t.Items[0].Pos.Offset, t.Items[len(t.Items)-1].EndPos.Offset}
}

// jconv converts grammar structs into the render tree.
type jconv struct{ src []byte }

func tokEnd(t lexer.Token) int { return t.Pos.Offset + len(t.Value) }

// textBetween is the source between two offsets, trimmed.
func (cv *jconv) textBetween(a, b int) string {
	return strings.TrimSpace(string(cv.src[a:b]))
}

func (cv *jconv) nodes(gs []*jgNode) []jnode {
	var out []jnode
	for _, g := range gs {
		switch {
		case g.Text.Type == jtText:
			out = append(out, jText{g.Text.Pos.Offset, tokEnd(g.Text)})
		case g.Output != nil:
			out = append(out, jExpr{g.Output.Open.Pos.Offset, tokEnd(g.Output.Close), cv.tuple(g.Output.X)})
		case g.Stmt != nil:
			if n := cv.stmt(g.Open, g.Stmt); n != nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func (cv *jconv) stmt(open lexer.Token, s *jgStmt) jnode {
	switch {
	case s.If != nil:
		return cv.ifNode(s.If)
	case s.For != nil:
		f := s.For
		n := jFor{start: open.Pos.Offset, end: tokEnd(f.Close)}
		n.targets = f.Targets.strings()
		n.iter = cv.orTuple(f.Iter)
		if f.Cond != nil {
			n.cond = cv.expr(f.Cond)
			n.condAt = Span{f.Cond.Pos.Offset, f.Cond.EndPos.Offset}
		}
		n.body = cv.nodes(f.Body)
		n.bodySpan = Span{tokEnd(f.Close), f.End.Pos.Offset}
		if f.Else != nil {
			n.els = cv.nodes(f.Else.Body)
			n.bodySpan.End = f.Else.Open.Pos.Offset
			n.elsSpan = Span{tokEnd(f.Else.Close), f.End.Pos.Offset}
		}
		n.iterText = cv.textBetween(f.Iter.Pos.Offset, f.Iter.EndPos.Offset)
		n.iterAt = Span{f.Iter.Pos.Offset, f.Iter.EndPos.Offset}
		return n
	case s.Set != nil:
		st := s.Set
		if st.Value != nil {
			return jSet{st.Targets.strings(), cv.tuple(st.Value), tupleSpan(st.Value)}
		}
		return jSetBlock{st.Targets.strings()[0], cv.nodes(st.Body)}
	case s.Macro != nil:
		cv.nodes(s.Macro.Body)
		return jUnknownSet{names: []string{s.Macro.Name}}
	case s.CallBlock != nil:
		end := tokEnd(s.CallBlock.End)
		if s.CallBlock.End.Value == "" { // closed at the end of the template
			end = tokEnd(s.CallBlock.Close)
		}
		return jOpaque{open.Pos.Offset, end}
	case s.Filter != nil:
		return jScope{body: cv.nodes(s.Filter.Body)}
	case s.With != nil:
		var sets []jSet
		for _, a := range s.With.Sets {
			sets = append(sets, jSet{[]string{a.Name}, cv.expr(a.Value), Span{a.Value.Pos.Offset, a.Value.EndPos.Offset}})
		}
		return jScope{sets: sets, body: cv.nodes(s.With.Body)}
	case s.Block != nil:
		return jScope{body: cv.nodes(s.Block.Body)}
	case s.Autoescape != nil:
		return jScope{body: cv.nodes(s.Autoescape.Body)}
	case s.Load != nil:
		return jUnknownSet{names: []string{s.Load.Name}}
	case s.Import != nil:
		return jUnknownSet{names: []string{s.Import.Name}}
	case s.From != nil:
		var names []string
		for _, n := range s.From.Names {
			if n.Alias != "" {
				names = append(names, n.Alias)
			} else {
				names = append(names, n.Name)
			}
		}
		return jUnknownSet{names: names}
	case s.Do != nil:
		e := cv.tuple(s.Do.X)
		return jDo{e: e, root: rootName(e), at: tupleSpan(s.Do.X)}
	case s.Include != nil:
		return jOpaque{open.Pos.Offset, tokEnd(s.Include.Close)}
	case s.Extends != nil:
		return jOpaque{open.Pos.Offset, tokEnd(s.Extends.Close)}
	}
	return nil // break, continue, tags of unknown extensions: no output
}

// rootName is the variable an expression starts from (`x` in
// `x.update(...)`), the one a `do` changes.
func rootName(e expr) string {
	for {
		switch x := e.(type) {
		case eName:
			return x.name
		case eAttr:
			e = x.x
		case eIndex:
			e = x.x
		case eCall:
			e = x.fn
		case eCond:
			e = x.then
		default:
			return ""
		}
	}
}

func (cv *jconv) ifNode(g *jgIf) jnode {
	n := jIf{}
	add := func(cond *jgOrTuple, body []*jgNode, from, to int) {
		if cond != nil {
			n.conds = append(n.conds, cv.orTuple(cond))
			n.texts = append(n.texts, cv.textBetween(cond.Pos.Offset, cond.EndPos.Offset))
			n.at = append(n.at, Span{cond.Pos.Offset, cond.EndPos.Offset})
		} else {
			n.conds = append(n.conds, nil)
			n.texts = append(n.texts, "")
			n.at = append(n.at, Span{})
		}
		n.bodies = append(n.bodies, cv.nodes(body))
		n.spans = append(n.spans, Span{from, to})
	}
	next := func(i int) int { // where the arm after elif i (or the if, -1) ends
		if i+1 < len(g.Elifs) {
			return g.Elifs[i+1].Open.Pos.Offset
		}
		if g.Else != nil {
			return g.Else.Open.Pos.Offset
		}
		return g.End.Pos.Offset
	}
	add(g.Cond, g.Body, tokEnd(g.Close), next(-1))
	for i, e := range g.Elifs {
		add(e.Cond, e.Body, tokEnd(e.Close), next(i))
	}
	if g.Else != nil {
		add(nil, g.Else.Body, tokEnd(g.Else.Close), g.End.Pos.Offset)
	}
	return n
}

func (t *jgTargets) strings() []string {
	return targetStrings(t.Names)
}

// targetStrings names targets as bindTargets takes them: a nested tuple
// is "(a,b)".
func targetStrings(ts []*jgTarget) []string {
	var out []string
	for _, n := range ts {
		switch {
		case n.Sub != nil:
			out = append(out, "("+strings.Join(targetStrings(n.Sub), ",")+")")
		case n.Attr != "":
			out = append(out, n.Name+"."+n.Attr)
		default:
			out = append(out, n.Name)
		}
	}
	return out
}

func (cv *jconv) tuple(t *jgTuple) expr {
	if len(t.Items) == 1 && !t.Comma {
		return cv.expr(t.Items[0])
	}
	items := make([]expr, len(t.Items))
	for i, x := range t.Items {
		items[i] = cv.expr(x)
	}
	return eList{items}
}

func (cv *jconv) orTuple(t *jgOrTuple) expr {
	if len(t.Items) == 1 && !t.Comma {
		return cv.or(t.Items[0])
	}
	items := make([]expr, len(t.Items))
	for i, x := range t.Items {
		items[i] = cv.or(x)
	}
	return eList{items}
}

func (cv *jconv) expr(g *jgExpr) expr {
	x := cv.or(g.Then)
	if g.Cond == nil {
		return x
	}
	var els expr = eLit{noneVal()}
	if g.Else != nil {
		els = cv.expr(g.Else)
	}
	return eCond{x, cv.or(g.Cond), els}
}

// fold joins left-associative operands with one operator.
func fold[T any](x expr, rs []T, op string, f func(T) expr) expr {
	for _, r := range rs {
		x = eBin{op, x, f(r)}
	}
	return x
}

func (cv *jconv) or(g *jgOr) expr { return fold(cv.and(g.Left), g.Right, "or", cv.and) }

func (cv *jconv) and(g *jgAnd) expr { return fold(cv.not(g.Left), g.Right, "and", cv.not) }

func (cv *jconv) not(g *jgNot) expr {
	if g.Not != nil {
		return eNot{cv.not(g.Not)}
	}
	x := cv.math1(g.X.Left)
	for _, op := range g.X.Ops {
		r := cv.math1(op.Right)
		if op.Op == "notin" {
			x = eNot{eBin{"in", x, r}}
		} else {
			x = eBin{op.Op, x, r}
		}
	}
	return x
}

func (cv *jconv) math1(g *jgMath1) expr {
	x := cv.concat(g.Left)
	for _, op := range g.Ops {
		x = eBin{op.Op, x, cv.concat(op.Right)}
	}
	return x
}

func (cv *jconv) concat(g *jgConcat) expr { return fold(cv.math2(g.Left), g.Right, "~", cv.math2) }

func (cv *jconv) math2(g *jgMath2) expr {
	x := cv.pow(g.Left)
	for _, op := range g.Ops {
		x = eBin{op.Op, x, cv.pow(op.Right)}
	}
	return x
}

func (cv *jconv) pow(g *jgPow) expr { return fold(cv.unary(g.Left), g.Right, "**", cv.unary) }

func (cv *jconv) unary(g *jgUnary) expr {
	x := cv.postfix(cv.primary(g.Primary), g.Postfix)
	for i := len(g.Signs) - 1; i >= 0; i-- {
		if g.Signs[i] == "-" {
			x = eNeg{x}
		}
	}
	for _, f := range g.Filters {
		switch {
		case f.Filter != nil:
			var args []expr
			var kw map[string]expr
			if f.Filter.Args != nil {
				args, kw = cv.args(f.Filter.Args)
			}
			x = eFilter{x, strings.Join(f.Filter.Name, "."), args, kw}
		case f.Test != nil:
			var args []expr
			if f.Test.Args != nil {
				args = cv.positional(f.Test.Args)
			} else if f.Test.Arg != nil {
				args = []expr{cv.postfix(cv.primary(f.Test.Arg.Primary), f.Test.Arg.Postfix)}
			}
			x = eTest{x, strings.Join(f.Test.Name, "."), f.Test.Not, args}
		case f.Call != nil:
			args, kw := cv.args(f.Call)
			x = eCall{x, args, kw}
		}
	}
	return x
}

func (cv *jconv) postfix(x expr, ps []*jgPostfix) expr {
	for _, p := range ps {
		switch {
		case p.Attr != nil:
			x = eAttr{x, *p.Attr}
		case p.Index != nil:
			s := p.Index
			var lo, hi expr
			if s.Lo != nil {
				lo = cv.expr(s.Lo)
			}
			if !s.Colon {
				x = eIndex{x, lo}
				continue
			}
			if s.Step != nil {
				x = eBad{} // slices with a step are not evaluated
				continue
			}
			if s.Hi != nil {
				hi = cv.expr(s.Hi)
			}
			x = eSlice{x, lo, hi}
		case p.Call != nil:
			args, kw := cv.args(p.Call)
			x = eCall{x, args, kw}
		}
	}
	return x
}

func (cv *jconv) positional(a *jgArgs) []expr {
	if a == nil {
		return nil
	}
	args, _ := cv.args(a)
	return args
}

func (cv *jconv) args(a *jgArgs) ([]expr, map[string]expr) {
	var args []expr
	var kw map[string]expr
	for _, x := range a.Args {
		if x.Name != "" {
			if kw == nil {
				kw = map[string]expr{}
			}
			kw[x.Name] = cv.expr(x.Value)
			continue
		}
		if x.Star != "" {
			// *args: how many positional values it gives is unknown
			args = append(args, eBad{})
			continue
		}
		args = append(args, cv.expr(x.Value))
	}
	return args, kw
}

func (cv *jconv) primary(g *jgPrimary) expr {
	switch {
	case g.Strings != nil:
		var sb strings.Builder
		for _, s := range g.Strings {
			sb.WriteString(unquoteJinja(s))
		}
		return eLit{strVal(sb.String())}
	case g.Number != nil:
		f, err := strconv.ParseFloat(strings.ReplaceAll(*g.Number, "_", ""), 64)
		if err != nil {
			return eBad{}
		}
		return eLit{numVal(f)}
	case g.Name != nil:
		switch *g.Name {
		case "true", "True":
			return eLit{boolVal(true)}
		case "false", "False":
			return eLit{boolVal(false)}
		case "none", "None":
			return eLit{noneVal()}
		}
		return eName{*g.Name}
	case g.Paren != nil:
		if len(g.Paren.Items) == 1 && !g.Paren.Comma {
			return cv.expr(g.Paren.Items[0])
		}
		items := make([]expr, len(g.Paren.Items))
		for i, x := range g.Paren.Items {
			items[i] = cv.expr(x)
		}
		return eList{items}
	case g.List != nil:
		var items []expr
		for _, x := range g.List.Items {
			items = append(items, cv.expr(x))
		}
		return eList{items}
	case g.Dict != nil:
		var d eDict
		for _, e := range g.Dict.Entries {
			d.keys = append(d.keys, cv.expr(e.Key))
			d.vals = append(d.vals, cv.expr(e.Value))
		}
		return d
	}
	return eBad{}
}
