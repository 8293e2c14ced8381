package puppet

import (
	"hash/maphash"
	"sort"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// File is a parsed manifest: the top-level statements of every chunk that
// parsed, and the syntax errors of those that did not.
type File struct {
	Stmts  []Node
	Errors []Error
	Chunks []Chunk
}

// Chunk is one top-level piece of a file, parsed on its own so that a
// syntax error costs one chunk and a keystroke re-parses one chunk.
type Chunk struct {
	Loc
	Stmts []Node
	Err   *Error
	hash  uint64
	// nested: what nestedDefinitions reports in the chunk, kept (and
	// shifted) with it, so that an edit validates the chunks it parsed.
	nested []Error
}

var seed = maphash.MakeSeed()

// Parse parses a whole file. It never panics and never fails: syntax
// errors are listed in File.Errors and everything else is kept.
func Parse(src []byte) *File {
	return (&Parser{}).Parse(src)
}

// Parser keeps the chunks of the previous version of one file so that an
// edit re-parses only the chunks whose text changed (the others are
// reused, shifted to their new offsets). It keeps the last File's Chunks
// and trees as they are (reusing a chunk shifts its nodes in place):
// callers read a File, never modify it. Not safe for concurrent use on
// one value; use one Parser per file.
type Parser struct {
	mu   sync.Mutex
	prev *chunkCache
	// The previous text and its tokens, for incremental lexing (edited
	// in place), and a buffer for the re-lexed tokens of an edit.
	prevSrc  []byte
	prevToks []Token
	spare    []Token
	edited   bool // parsed before: the next parse is an edit
	// hand parses chunks with the hand-written parser instead of the
	// participle grammar (tests and benchmarks only: handParse).
	hand bool
	// NoCache parses every chunk that is not the previous version's,
	// without the chunk cache (chunkcache.go).
	NoCache bool
	// fc replaces the process's chunk cache (tests: a cache of their own,
	// as another process would have).
	fc *filecache.Cache
	// whole lexes every version whole, as before chunks were cut from a
	// stream (the equivalence tests).
	whole bool
	// Reused, Parsed and Decoded (from the chunk cache) count chunks of
	// the last Parse (for tests and benchmarks).
	Reused, Parsed, Decoded int
}

// cache is the chunk cache this parser uses: the process's, or none.
func (ps *Parser) cache() *filecache.Cache {
	if ps.NoCache || ps.hand {
		return nil
	}
	if ps.fc != nil {
		return ps.fc
	}
	return filecache.Shared()
}

// Parse parses src, reusing unchanged chunks from the previous call.
func (ps *Parser) Parse(src []byte) *File {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	f := &File{}
	add := func(ch []Chunk) {
		for _, c := range ch {
			f.Chunks = append(f.Chunks, c)
			f.Stmts = append(f.Stmts, c.Stmts...)
			if c.Err != nil {
				f.Errors = append(f.Errors, *c.Err)
			}
		}
	}
	cx := &chunker{src: src, prev: ps.prev, hand: ps.hand, cache: ps.cache()}
	validated := false
	keep := ps.prevToks != nil || (ps.edited && len(src) <= maxIncrementalLex)
	if ps.whole {
		keep = true
	}
	if keep {
		// An edit of a file whose tokens are kept (or the second parse,
		// which keeps them for the edits to come): lex it whole.
		toks := ps.lex(src)
		for _, r := range splitChunks(src, toks) {
			add(cx.chunk(toks, r))
		}
		ps.prevSrc, ps.prevToks = src, toks
	} else if locs := ps.indexed(src, cx); locs != nil && cx.decodeIndexed(f, locs) {
		// Parsed before: the chunks' places are known (fileindex.go).
		validated = true
		ps.prevSrc, ps.prevToks = nil, nil
	} else {
		// Nothing will keep the tokens: lex as the chunks are cut.
		first := cx.cache != nil && cx.prev.empty()
		defer func() {
			if first {
				storeFileIndex(cx.cache, src, f.Chunks)
			}
		}()
		cc := newChunkCutter(src, getTokens(len(src)))
		defer putTokens(cc)
		if w := ps.parallelWorkers(src); w > 1 {
			cx.parsed, cx.decoded = addBatches(f, parseParallel(src, cc, w, cx), add)
			validated = true // by the workers
		} else {
			for {
				r, ok := cc.next()
				if !ok {
					break
				}
				add(cx.chunk(cc.buf, r))
				cc.drop()
			}
		}
		ps.prevSrc, ps.prevToks = nil, nil
	}
	if !validated {
		// validate(f.Stmts), with each chunk's nested definitions found
		// when it was parsed
		f.Errors = append(f.Errors, topLevelChecks(f.Stmts)...)
		for _, c := range f.Chunks {
			f.Errors = append(f.Errors, c.nested...)
		}
	}
	// the file's own block: only the whole file knows its last statement
	f.Errors = append(f.Errors, topLevelEffects(src, f.Stmts)...)
	ps.prev = newChunkCache(f.Chunks)
	ps.Reused, ps.Parsed, ps.Decoded = cx.reused, cx.parsed, cx.decoded
	if len(src) > maxIncrementalLex || !ps.edited {
		// Tokens cost ~20x the text: for huge files memory matters more
		// than the few milliseconds incremental lexing saves, and a file
		// parsed once (the thousands a workspace loads from disk, of
		// which the user edits a few) keeps none: its first edit lexes
		// it whole, later ones incrementally.
		ps.prevSrc, ps.prevToks, ps.spare = nil, nil, nil
	}
	ps.edited = true
	return f
}

// indexed returns the places of src's chunks when the chunk cache knows
// them and there is no previous version to reuse chunks from.
func (ps *Parser) indexed(src []byte, cx *chunker) []Loc {
	if cx.cache == nil || !cx.prev.empty() {
		return nil
	}
	return indexedChunks(cx.cache, src)
}

// handParse is the hand-written parser the grammar replaced, which only
// the tests hold (hand_test.go sets it).
var handParse func(src []byte, toks []Token, follow *Token) ([]Node, *Error)

// maxIncrementalLex is the largest file whose tokens are kept between
// parses for incremental lexing (a variable for the tests).
var maxIncrementalLex = 2 << 20

// lex re-lexes only the part of src that differs from the previous text:
// tokens before the edit are kept, lexing restarts at the statement start
// before it and stops as soon as it meets, after the edit, a statement
// start of the old stream at the same (shifted) place; the old tokens
// after that are reused, shifted. The previous token slice is edited in
// place (nothing else holds it: syntax trees keep no tokens), so an edit
// costs the re-lexed tokens, not a copy of the file's.
func (ps *Parser) lex(src []byte) []Token {
	old, otoks := ps.prevSrc, ps.prevToks
	if otoks == nil || len(src) < 64 {
		return Lex(src)
	}
	p := 0
	for p < len(src) && p < len(old) && src[p] == old[p] {
		p++
	}
	if p == len(src) && p == len(old) {
		return otoks
	}
	sfx := 0
	for sfx < len(src)-p && sfx < len(old)-p && src[len(src)-1-sfx] == old[len(old)-1-sfx] {
		sfx++
	}
	delta := len(src) - len(old)
	oldEditEnd := len(old) - sfx
	// Restart at a statement start whose token ends well before the edit.
	i0 := 0
	k := sort.Search(len(otoks), func(i int) bool { return otoks[i].End >= p })
	if k > len(otoks)-1 {
		k = len(otoks) - 1
	}
	for i := k - 1; i > 0; i-- {
		t := &otoks[i]
		if t.End < p && atLineStart(old, t.Pos) && t.NL && startsStatement(t) {
			i0 = i
			break
		}
	}
	start := 0
	if i0 > 0 {
		start = otoks[i0].Pos
	}
	lx := &lexer{src: src, pos: start, end: len(src), skipFrom: -1}
	mid := ps.spare[:0]
	j := i0 // candidate old token to resynchronise on
	for {
		prev := mid
		if len(mid) == 0 {
			prev = otoks[:i0]
		}
		t := lx.next(prev)
		if i0 > 0 && len(mid) == 0 {
			t.NL = otoks[i0].NL
		}
		if t.Kind != TEOF && t.Pos-delta >= oldEditEnd && lx.skipFrom < 0 && t.NL && atLineStart(src, t.Pos) && startsStatement(&t) {
			for j < len(otoks) && otoks[j].Pos < t.Pos-delta {
				j++
			}
			if j < len(otoks) && otoks[j].Pos == t.Pos-delta && otoks[j].Kind == t.Kind && otoks[j].End == t.End-delta && otoks[j].NL && j > 0 {
				return ps.splice(src, otoks, i0, j, mid, delta)
			}
		}
		mid = append(mid, t)
		if t.Kind == TEOF {
			return ps.splice(src, otoks, i0, len(otoks), mid, delta)
		}
	}
}

// splice replaces otoks[i0:j] with mid and shifts the tokens after it by
// delta bytes, in place when the slice has room.
func (ps *Parser) splice(src []byte, otoks []Token, i0, j int, mid []Token, delta int) []Token {
	n := i0 + len(mid) + len(otoks) - j
	var out []Token
	switch {
	case len(mid) == j-i0:
		out = otoks
		copy(out[i0:], mid)
	case n <= cap(otoks):
		out = otoks[:n]
		copy(out[i0+len(mid):], otoks[j:]) // overlapping: copy moves
		copy(out[i0:], mid)
		if n < len(otoks) {
			clear(otoks[n:]) // drop what the tail held
		}
	default:
		out = make([]Token, n, n+n/8)
		copy(out, otoks[:i0])
		copy(out[i0:], mid)
		copy(out[i0+len(mid):], otoks[j:])
	}
	if delta != 0 {
		for k := i0 + len(mid); k < n; k++ {
			o := &out[k]
			o.Pos += delta
			o.End += delta
			for x := range o.Parts {
				if o.Parts[x].Expr {
					o.Parts[x].Pos += delta
					o.Parts[x].End += delta
				}
			}
		}
	}
	clear(mid)
	ps.spare = mid[:0]
	// The old slice is gone: what it holds now is the new text's tokens.
	ps.prevSrc, ps.prevToks = src, out
	return out
}

type tokRange struct{ a, b int } // token indexes [a, b)

// chunkCache finds the chunks of the previous version by the hash of
// their text. It holds that version's File.Chunks (no copy) and, per
// hash, the first chunk not yet reused, chained to the next one with the
// same hash (identical chunks are reused in file order). For the 100k
// file it takes 1.9 MB where a map of chunk slices took 5.1.
type chunkCache struct {
	chunks []Chunk
	first  map[uint64]int32
	next   []int32 // -1: no other chunk with this hash
}

func newChunkCache(chunks []Chunk) *chunkCache {
	c := &chunkCache{chunks: chunks, first: make(map[uint64]int32, len(chunks)), next: make([]int32, len(chunks))}
	for i := len(chunks) - 1; i >= 0; i-- {
		j, ok := c.first[chunks[i].hash]
		if !ok {
			j = -1
		}
		c.next[i] = j
		c.first[chunks[i].hash] = int32(i)
	}
	return c
}

// take returns the first chunk with hash h not taken yet.
func (c *chunkCache) take(h uint64) (Chunk, bool) {
	if c == nil {
		return Chunk{}, false
	}
	i, ok := c.first[h]
	if !ok || i < 0 {
		return Chunk{}, false
	}
	c.first[h] = c.next[i]
	return c.chunks[i], true
}

// empty reports whether there is nothing to reuse.
func (c *chunkCache) empty() bool { return c == nil || len(c.chunks) == 0 }

// chunker parses the chunks of one Parse, reusing those of the previous
// version found in prev (whose entries it consumes).
type chunker struct {
	src   []byte
	prev  *chunkCache
	hand  bool
	cache *filecache.Cache // nil: parse every chunk
	al    slabs            // the nodes of decoded chunks
	// reused, parsed and decoded count chunks, for Parser.Reused, Parsed
	// and Decoded.
	reused, parsed, decoded int
}

// chunk parses the tokens toks[r.a:r.b] (toks[r.b] is the token after
// them), or reuses the previous version's chunk of the same text.
func (cx *chunker) chunk(toks []Token, r tokRange) []Chunk {
	src := cx.src
	pos := toks[r.a].Pos
	end := toks[r.b-1].End
	h := maphash.Bytes(seed, src[pos:end])
	if c, ok := cx.prev.take(h); ok {
		// Same 64-bit hash and length: same text. A chunk with a syntax
		// error is parsed again: the error may name the token after the
		// chunk ("Syntax error at 'x'"), which is not part of its text.
		if c.End-c.Pos == end-pos && c.Err == nil {
			shiftChunk(&c, pos-c.Pos)
			cx.reused++
			return []Chunk{c}
		}
	}
	var key filecache.Key
	if cx.cache != nil {
		key = chunkKey(src[pos:end])
		if stmts, ok := cachedChunk(cx.cache, key, src, pos, end, &cx.al); ok {
			cx.decoded++
			return []Chunk{{Loc: Loc{pos, end}, Stmts: stmts, hash: h, nested: nestedDefinitions(stmts, true)}}
		}
	}
	cx.parsed++
	// toks[r.b] reads as end of input for this chunk (the parsers never
	// look past its last token).
	follow := &toks[r.b]
	syntax := parseChunkGrammar
	if cx.hand {
		syntax = handParse
	}
	parse := checkedParse(syntax)
	stmts, err := syntax(src, toks[r.a:r.b+1], follow)
	parsed := err == nil
	if parsed {
		err = effectsError(src, stmts)
	}
	if err == nil {
		if cx.cache != nil {
			storeChunk(cx.cache, key, src, pos, end, stmts)
		}
		return []Chunk{{Loc: Loc{pos, end}, Stmts: stmts, hash: h, nested: nestedDefinitions(stmts, true)}}
	}
	// Error recovery: a definition whose brackets all close keeps its body,
	// whatever column its statements start at (fuel-infra's obs::nginx
	// writes them at column 0 above a real syntax error: cut there, the
	// class was lost and its body read at top level).
	if !parsed && bracketsBalance(toks, r) {
		if body := cx.recoverBody(toks, r, parse); body != nil {
			return []Chunk{{Loc: Loc{pos, end}, Stmts: body, Err: err, hash: h, nested: nestedDefinitions(body, true)}}
		}
	}
	// If a later line starts a statement at column 0, the error is most
	// likely an unclosed bracket before it. Cut there: the first part
	// keeps its error, the rest is chunked again. (Not when the chunk
	// parsed and only a statement without effect is refused: its
	// brackets are closed.)
	if cut := restartPoint(src, toks, r); cut > r.a && !parsed {
		first := cx.chunk(toks, tokRange{r.a, cut})
		out := first
		for _, rr := range splitRange(src, toks, cut, r.b) {
			out = append(out, cx.chunk(toks, rr)...)
		}
		return out
	}
	if body := cx.recoverBody(toks, r, parse); body != nil {
		stmts = body
	} else if res := recoverStatement(cx.src, toks, r, parse); res != nil {
		stmts = res
	}
	return []Chunk{{Loc: Loc{pos, end}, Stmts: stmts, Err: err, hash: h, nested: nestedDefinitions(stmts, true)}}
}

// recoverBody reads a class, define or node definition whose body does
// not parse (a resource half typed) statement by statement, and returns
// the definition with the statements that do: the chunk keeps its error,
// and the rest of the body is still evaluated and shown (code lenses,
// hints, hover). Without it the whole definition went: in VS Code on
// operations-puppet, every lens of profile::base vanished at each
// keystroke that left a resource unfinished, and the text jumped. nil
// when r is not such a definition or its header does not parse.
func (cx *chunker) recoverBody(toks []Token, r tokRange, parse func([]byte, []Token, *Token) ([]Node, *Error)) []Node {
	if t := &toks[r.a]; t.Kind != TName || (t.Val != "class" && t.Val != "define" && t.Val != "node") {
		return nil
	}
	// the body: the first brace outside the header's brackets, closed by
	// the chunk's last token
	lb, depth := -1, 0
	for i := r.a + 1; i < r.b && lb < 0; i++ {
		if t := &toks[i]; t.Kind == TPunct {
			switch t.Val {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			case "{":
				if depth == 0 {
					lb = i
				} else {
					depth++
				}
			case "}":
				depth--
			}
		}
	}
	rb := r.b - 1
	if lb < 0 || rb <= lb || toks[rb].Kind != TPunct || toks[rb].Val != "}" {
		return nil
	}
	depth = 0
	for i := lb; i <= rb; i++ {
		if t := &toks[i]; t.Kind == TPunct {
			switch t.Val {
			case "{", "[", "(":
				depth++
			case "}", "]", ")":
				depth--
			}
		}
		if depth <= 0 && i < rb {
			return nil // the body closes before the chunk ends
		}
	}
	if depth != 0 {
		return nil
	}
	// the definition with an empty body: its tokens up to the brace,
	// the closing brace, and the token after the chunk as end of input
	head := make([]Token, 0, lb-r.a+3)
	head = append(head, toks[r.a:lb+1]...)
	head = append(head, toks[rb], toks[r.b])
	defs, err := parse(cx.src, head, &head[len(head)-1])
	if err != nil || len(defs) != 1 {
		return nil
	}
	var body []Node
	for _, sr := range splitStatements(cx.src, toks, lb+1, rb, false) {
		ss, err := parse(cx.src, toks[sr.a:sr.b+1], &toks[sr.b])
		if err != nil {
			ss = recoverStatement(cx.src, toks, sr, parse)
		}
		for _, s := range ss {
			if !droppedFromDefinition(s) { // (the body's own error: effects.go)
				body = append(body, s)
			}
		}
	}
	switch d := defs[0].(type) {
	case *ClassDef:
		d.Body = body
	case *DefineDef:
		d.Body = body
	case *NodeDef:
		d.Body = body
	default:
		return nil
	}
	return defs
}

// maxDroppedLines bounds the lines recoverStatement tries to read a
// statement without, last first: the one being typed is most often at the
// end, and each try is a parse of the whole statement.
const maxDroppedLines = 8

// recoverStatement reads a statement that does not parse (toks[r.a:r.b],
// toks[r.b] the token after it) as it reads without one of its lines: the
// attribute being typed into a resource (`file { '/x':` ... `mo` ... `}`),
// a resource half typed into an `if` block. Only a line after the first
// whose brackets close what they open, and nothing before them, may go:
// the statement's structure (its braces, `} else {`) stays as written.
// The statement keeps its place, the line's text lies inside it, and the
// chunk keeps its error. Without it the whole statement went while a line
// of it was typed: the lenses, hints and hovers of what it declares
// vanished at each keystroke, and the analysis changed (the result could
// not follow the keystroke, analysis.Result.Follow). nil when no single
// line makes it parse.
func recoverStatement(src []byte, toks []Token, r tokRange, parse func([]byte, []Token, *Token) ([]Node, *Error)) []Node {
	// the lines after the first: [starts[k], starts[k+1])
	var starts []int
	for k := r.a + 1; k < r.b; k++ {
		if toks[k].NL {
			starts = append(starts, k)
		}
	}
	tried := 0
	for n := len(starts) - 1; n >= 0 && tried < maxDroppedLines; n-- {
		a, b := starts[n], r.b
		if n+1 < len(starts) {
			b = starts[n+1]
		}
		if !selfContained(toks[a:b]) {
			continue
		}
		tried++
		without := make([]Token, 0, r.b-r.a-(b-a)+1)
		without = append(without, toks[r.a:a]...)
		without = append(without, toks[b:r.b+1]...)
		if stmts, err := parse(src, without, &without[len(without)-1]); err == nil && len(stmts) > 0 {
			return stmts
		}
	}
	return nil
}

// selfContained reports whether a line's brackets close what they open,
// and nothing opened before it.
func selfContained(line []Token) bool {
	depth := 0
	for i := range line {
		if t := &line[i]; t.Kind == TPunct {
			switch t.Val {
			case "{", "[", "(":
				depth++
			case "}", "]", ")":
				depth--
				if depth < 0 {
					return false
				}
			}
		}
	}
	return depth == 0
}

// splitChunks cuts the token list (ending with TEOF) into top-level
// statement groups by balanced brackets.
func splitChunks(src []byte, toks []Token) []tokRange {
	if len(toks) == 0 {
		return nil
	}
	return splitRange(src, toks, 0, len(toks)-1)
}

func splitRange(src []byte, toks []Token, a, b int) []tokRange {
	return splitStatements(src, toks, a, b, true)
}

// splitStatements cuts toks[a:b] where a statement ends and the next
// begins: after a closing brace, or at a new line (at column 0 only, for
// top-level statements: a statement in a body is indented). A line that
// ends in a token the lexer could not read (`$` typed before a name) ends
// its statement too: the statement after it is not read as its tail (a
// class body lost every statement while `$` was the only key typed on a
// new line above them).
func splitStatements(src []byte, toks []Token, a, b int, column0 bool) []tokRange {
	var out []tokRange
	start := a
	depth := 0
	for i := a; i < b; i++ {
		t := &toks[i]
		if t.Kind == TPunct {
			switch t.Val {
			case "{", "[", "(":
				depth++
			case "}", "]", ")":
				if depth > 0 {
					depth--
				}
			}
		}
		if depth != 0 || i+1 >= b {
			continue
		}
		n := &toks[i+1]
		cut := false
		if t.Kind == TPunct && t.Val == "}" && startsStatement(n) {
			cut = true
		} else if (endsExpr(t) || t.Kind == TIllegal) && n.NL && (!column0 || atLineStart(src, n.Pos)) && startsStatement(n) {
			cut = true
		}
		if cut {
			out = append(out, tokRange{start, i + 1})
			start = i + 1
		}
	}
	if start < b {
		out = append(out, tokRange{start, b})
	}
	return out
}

// restartPoint finds, after the first token of r, a token at column 0
// that starts a statement; it returns its index or -1.
func restartPoint(src []byte, toks []Token, r tokRange) int {
	for i := r.a + 1; i < r.b; i++ {
		t := &toks[i]
		if t.NL && atLineStart(src, t.Pos) && startsStatement(t) {
			return i
		}
	}
	return -1
}

// bracketsBalance: every bracket of toks[r.a:r.b] is closed, in order.
func bracketsBalance(toks []Token, r tokRange) bool {
	var open []string
	for i := r.a; i < r.b; i++ {
		t := &toks[i]
		if t.Kind != TPunct {
			continue
		}
		switch t.Val {
		case "{", "[", "(":
			open = append(open, t.Val)
		case "}", "]", ")":
			if len(open) == 0 || open[len(open)-1] != opening(t.Val) {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return len(open) == 0
}

func opening(closing string) string {
	switch closing {
	case "}":
		return "{"
	case "]":
		return "["
	}
	return "("
}

func atLineStart(src []byte, pos int) bool {
	return pos == 0 || src[pos-1] == '\n'
}

func startsStatement(t *Token) bool {
	switch t.Kind {
	case TName:
		switch t.Val {
		case "else", "elsif", "and", "or", "in", "inherits":
			return false
		}
		return true
	case TTypeName, TVar:
		return true
	case TPunct:
		return t.Val == "@" || t.Val == "@@"
	}
	return false
}

// endsExpr: an expression may end with t. The keywords that join two
// operands (`and`, `or`, `in`) and `inherits` wait for what follows, on
// the next line too, even at column 0 (raj-andy1/control-repo's
// `class cis (...) inherits` with `cis::params {` below it).
func endsExpr(t *Token) bool {
	switch t.Kind {
	case TName:
		switch t.Val {
		case "and", "or", "in", "inherits":
			return false
		}
		return true
	case TTypeName, TVar, TString, TIString, TNumber, TRegex:
		return true
	case TPunct:
		return t.Val == ")" || t.Val == "]" || t.Val == "}"
	}
	return false
}

// shiftChunk moves every offset in a reused chunk by d bytes.
func shiftChunk(c *Chunk, d int) {
	if d == 0 {
		return
	}
	c.Pos += d
	c.End += d
	if c.Err != nil {
		e := *c.Err
		e.Pos += d
		e.End += d
		c.Err = &e
	}
	if c.nested != nil {
		c.nested = append([]Error(nil), c.nested...)
		for i := range c.nested {
			shiftLoc(&c.nested[i].Loc, d)
		}
	}
	for _, s := range c.Stmts {
		Walk(s, func(n Node) bool {
			shiftNode(n, d)
			return true
		})
	}
}

func shiftLoc(l *Loc, d int) { l.Pos += d; l.End += d }

func shiftNode(n Node, d int) {
	shiftLoc(n.Span(), d)
	switch t := n.(type) {
	case *Call:
		shiftLoc(&t.NameLoc, d)
	case *MethodCall:
		shiftLoc(&t.NameLoc, d)
	case *Binary:
		shiftLoc(&t.OpLoc, d)
	case *Resource:
		shiftLoc(&t.TypeLoc, d)
	case *Attr:
		shiftLoc(&t.NameLoc, d)
	case *Param:
		shiftLoc(&t.NameLoc, d)
	case *ClassDef:
		shiftLoc(&t.NameLoc, d)
		if t.ParentLoc != (Loc{}) {
			// no parent: the zero Loc a fresh parse gives stays zero
			shiftLoc(&t.ParentLoc, d)
		}
	case *DefineDef:
		shiftLoc(&t.NameLoc, d)
	case *FunctionDef:
		shiftLoc(&t.NameLoc, d)
	case *TypeAlias:
		shiftLoc(&t.NameLoc, d)
	case *Block:
		shiftLoc(&t.NameLoc, d)
	case *Case:
		for i := range t.Options {
			shiftLoc(&t.Options[i].Loc, d)
		}
	}
}
