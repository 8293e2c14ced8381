package puppet

import "sync"

// A first parse keeps no tokens afterwards, so it need not hold them all
// at once either: the chunk cutter lexes only as far as the chunk it is
// cutting (plus the one token that decides the cut), and the tokens of a
// parsed chunk are dropped. A 7.9 MB manifest lexes to ~1.5M tokens
// (~100 MB); cut as a stream it holds those of its largest chunk.

// chunkCutter lexes src on demand and cuts it into exactly the chunks
// splitChunks cuts the whole token list into: the same balanced-bracket
// walk, with the token after a chunk (its follow token) lexed before the
// chunk is handed out. Ranges index buf, which holds the tokens from the
// first one not yet handed out (or of a batch, see detach).
type chunkCutter struct {
	src   []byte
	lx    lexer
	buf   []Token
	i     int // next token of buf to examine
	start int // first token of the chunk being cut
	depth int
	eof   bool // buf ends with TEOF
}

func newChunkCutter(src []byte, buf []Token) *chunkCutter {
	return &chunkCutter{src: src, lx: lexer{src: src, end: len(src), skipFrom: -1}, buf: buf[:0]}
}

// lexTo makes sure buf holds token i (TEOF is the last one).
func (c *chunkCutter) lexTo(i int) {
	for len(c.buf) <= i && !c.eof {
		// The lexer reads only the last token before it (regex or
		// division), which buf always ends with: dropping the tokens of
		// a parsed chunk keeps the follow token.
		n := len(c.buf)
		c.buf = append(c.buf, Token{})
		c.lx.nextInto(c.buf[:n], &c.buf[n])
		c.eof = c.buf[n].Kind == TEOF
	}
}

// next returns the next chunk as a range of buf: tokens [a, b), with
// buf[b] its follow token (TEOF at the end of the file). ok is false when
// no chunk is left. The cut is splitRange's: at depth 0, after a '}' that
// is followed by a statement start, or after the end of an expression
// followed by a statement start at the start of a line; never before the
// last token of the file.
func (c *chunkCutter) next() (r tokRange, ok bool) {
	for {
		c.lexTo(c.i)
		t := &c.buf[c.i]
		if t.Kind == TEOF {
			if c.start < c.i {
				r = tokRange{c.start, c.i}
				c.start = c.i
				return r, true
			}
			return tokRange{}, false
		}
		if t.Kind == TPunct {
			switch t.Val {
			case "{", "[", "(":
				c.depth++
			case "}", "]", ")":
				if c.depth > 0 {
					c.depth--
				}
			}
		}
		c.lexTo(c.i + 1)
		t = &c.buf[c.i] // buf may have moved
		n := &c.buf[c.i+1]
		c.i++
		if c.depth != 0 || n.Kind == TEOF {
			continue
		}
		if t.Kind == TPunct && t.Val == "}" && startsStatement(n) ||
			endsExpr(t) && n.NL && atLineStart(c.src, n.Pos) && startsStatement(n) {
			r = tokRange{c.start, c.i}
			c.start = c.i
			return r, true
		}
	}
}

// drop forgets the tokens before the chunk being cut (those of the chunks
// handed out, which their parse no longer needs), keeping buf's array.
func (c *chunkCutter) drop() {
	if c.start == 0 {
		return
	}
	n := copy(c.buf, c.buf[c.start:])
	clear(c.buf[n:]) // the strings and parts they hold
	c.buf = c.buf[:n]
	c.i -= c.start
	c.start = 0
}

// detach hands buf over (to a parse on another goroutine: its chunks'
// ranges stay valid in it) and goes on in fresh, which gets the tokens
// from the chunk being cut on.
func (c *chunkCutter) detach(fresh []Token) []Token {
	old := c.buf
	c.buf = append(fresh[:0], old[c.start:]...)
	c.i -= c.start
	c.start = 0
	return old
}

// tokenBufs recycles the token buffers of streaming parses: a workspace
// parses thousands of small files once each.
var tokenBufs sync.Pool

// getTokens returns an empty token buffer for a file of n bytes.
func getTokens(n int) []Token {
	if b, ok := tokenBufs.Get().(*[]Token); ok {
		return (*b)[:0]
	}
	// A small file needs a few hundred tokens (a token per ~5 bytes);
	// a big one grows the buffer to its largest chunk.
	return make([]Token, 0, min(n/5+4, 1024))
}

// putTokens recycles the cutter's buffer, emptied (its tokens hold the
// file's strings), unless a huge chunk grew it. Past its length a buffer
// is zero (drop clears what it moves down), so only that much is cleared.
func putTokens(c *chunkCutter) {
	b := c.buf
	c.buf = nil
	if cap(b) > 1<<16 {
		return
	}
	clear(b)
	b = b[:0]
	tokenBufs.Put(&b)
}
