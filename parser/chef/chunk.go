package chef

// Chunk is one top-level Ruby statement: tokens [From, To) of the file's
// token list and the byte range [Start, End) they cover (comments and the
// line break that ends the statement excluded).
type Chunk struct {
	From, To   int
	Start, End int
	// Unbalanced explains a statement whose brackets or blocks never close
	// (it then runs to the end of the file).
	Unbalanced string
}

// blockOpeners open a block that `end` closes when they start a statement.
var stmtOpeners = map[string]bool{"if": true, "unless": true, "while": true, "until": true}
var alwaysOpeners = map[string]bool{"case": true, "begin": true, "def": true, "class": true, "module": true, "for": true}

type opener struct {
	word   string
	line   int // index of the token that opened it
	hasDo  bool
	bStart int // byte offset
}

// prevSig returns the index of the previous token that is not a comment, or -1.
func prevSig(toks []Tok, i int) int {
	for j := i - 1; j >= 0; j-- {
		if toks[j].Kind != KComment {
			return j
		}
	}
	return -1
}

func nextSig(toks []Tok, i int) int {
	for j := i + 1; j < len(toks); j++ {
		if toks[j].Kind != KComment && toks[j].Kind != KNewline {
			return j
		}
	}
	return -1
}

// startsStatement reports whether the token at i begins an expression
// (so `if` there opens a block rather than being a modifier).
func startsStatement(src []byte, toks []Tok, i int) bool {
	p := prevSig(toks, i)
	if p < 0 {
		return true
	}
	t := toks[p]
	switch t.Kind {
	case KNewline, KOp, KLabel, KLIndex, KLCall:
		return true
	case KPunct:
		c := src[t.Start]
		return c == '(' || c == '[' || c == '{' || c == ',' || c == '=' || c == '|' || (c == '=' && t.End-t.Start == 2)
	case KIdent:
		return keywordsNotValue[t.Text(src)]
	}
	return false
}

func isDot(src []byte, t Tok) bool {
	if t.Kind != KPunct {
		return false
	}
	s := t.Text(src)
	return s == "." || s == "&." || s == "::"
}

// continues reports whether a line ending after token t goes on.
func continues(src []byte, t Tok) bool {
	switch t.Kind {
	case KOp:
		s := t.Text(src)
		return s != "!" // every binary operator, `?` and `:` continue the expression
	case KPunct:
		s := t.Text(src)
		return s == "," || s == "." || s == "&." || s == "::" || s == "=>" || s == "=" || s == "(" || s == "[" || s == "{" || s == "|"
	case KLabel, KLIndex, KLCall:
		return true
	}
	return false
}

// Split cuts the token list of a file into top-level statements.
func Split(src []byte, toks []Tok) []Chunk {
	var out []Chunk
	depth := 0
	var blocks []opener
	begin := -1 // first significant token of the current statement
	var openStack []int
	flush := func(to int) {
		if begin < 0 {
			return
		}
		last := prevSig(toks, to)
		for last >= begin && toks[last].Kind == KNewline {
			last = prevSig(toks, last)
		}
		if last < begin {
			begin = -1
			return
		}
		out = append(out, Chunk{From: begin, To: last + 1, Start: toks[begin].Start, End: toks[last].End})
		begin = -1
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind == KComment {
			continue
		}
		if t.Kind == KNewline {
			if begin < 0 {
				continue
			}
			if depth > 0 || len(blocks) > 0 {
				continue
			}
			if src[t.Start] == ';' {
				flush(i)
				continue
			}
			// after a comma or an operator Ruby reads on over any number
			// of blank and comment lines
			p := prevSig(toks, i)
			for p >= 0 && toks[p].Kind == KNewline {
				p = prevSig(toks, p)
			}
			if p >= 0 && continues(src, toks[p]) {
				continue
			}
			if n := nextSig(toks, i); n >= 0 && isDot(src, toks[n]) && src[toks[n].Start] != ':' {
				continue // leading-dot method chain on the next line
			}
			flush(i)
			continue
		}
		if begin < 0 {
			begin = i
		}
		switch t.Kind {
		case KPunct, KLIndex, KLCall:
			switch src[t.Start] {
			case '(', '[', '{':
				if t.End-t.Start == 1 {
					depth++
					openStack = append(openStack, i)
				}
			case ')', ']', '}':
				if depth > 0 {
					depth--
					openStack = openStack[:len(openStack)-1]
				}
			}
		case KIdent:
			w := t.Text(src)
			p := prevSig(toks, i)
			afterDot := p >= 0 && isDot(src, toks[p])
			if afterDot {
				break
			}
			switch {
			case w == "end":
				if len(blocks) > 0 {
					blocks = blocks[:len(blocks)-1]
				}
			case w == "do":
				if n := len(blocks); n > 0 && !blocks[n-1].hasDo && (blocks[n-1].word == "while" || blocks[n-1].word == "until" || blocks[n-1].word == "for") && sameLine(toks, blocks[n-1].line, i) {
					blocks[n-1].hasDo = true
				} else {
					blocks = append(blocks, opener{word: w, line: i, bStart: t.Start})
				}
			case alwaysOpeners[w]:
				blocks = append(blocks, opener{word: w, line: i, bStart: t.Start})
			case stmtOpeners[w] && startsStatement(src, toks, i):
				blocks = append(blocks, opener{word: w, line: i, bStart: t.Start})
			}
		}
	}
	if begin >= 0 {
		n := len(out)
		flush(len(toks))
		if len(out) > n && (depth > 0 || len(blocks) > 0) {
			c := &out[len(out)-1]
			if len(blocks) > 0 {
				b := blocks[len(blocks)-1]
				c.Unbalanced = "`" + b.word + "` is never closed by `end`"
			} else {
				o := toks[openStack[len(openStack)-1]]
				c.Unbalanced = "`" + string(src[o.Start:o.End]) + "` is never closed"
			}
		}
	}
	return out
}

func sameLine(toks []Tok, a, b int) bool {
	for j := a; j < b; j++ {
		if toks[j].Kind == KNewline {
			return false
		}
	}
	return true
}

// fold removes comments and line breaks from one statement's tokens and
// turns every do...end and {|...| ...} block into one KBlock token.
func fold(src []byte, toks []Tok) []Tok {
	out := make([]Tok, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind == KComment || t.Kind == KNewline {
			continue
		}
		if t.Kind == KIdent && t.Text(src) == "do" {
			if p := prevSig(toks, i); p < 0 || !isDot(src, toks[p]) {
				j := matchEnd(src, toks, i)
				out = append(out, Tok{Kind: KBlock, Start: t.Start, End: toks[j].End})
				i = j
				continue
			}
		}
		if t.Kind == KPunct && src[t.Start] == '{' {
			if n := nextSig(toks, i); n >= 0 && toks[n].Kind == KPunct && src[toks[n].Start] == '|' {
				j := matchBrace(src, toks, i)
				out = append(out, Tok{Kind: KBlock, Start: t.Start, End: toks[j].End})
				i = j
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// matchEnd returns the index of the `end` closing the block opened at i
// (or the last token when it never closes).
func matchEnd(src []byte, toks []Tok, i int) int {
	depth := 0
	var whileLine = -1
	for j := i; j < len(toks); j++ {
		t := toks[j]
		if t.Kind != KIdent {
			continue
		}
		if p := prevSig(toks, j); p >= 0 && isDot(src, toks[p]) {
			continue
		}
		w := t.Text(src)
		switch {
		case w == "end":
			depth--
			if depth == 0 {
				return j
			}
		case w == "do":
			if whileLine >= 0 && sameLine(toks, whileLine, j) {
				whileLine = -1
				continue
			}
			depth++
		case alwaysOpeners[w] || (stmtOpeners[w] && startsStatement(src, toks, j)):
			depth++
			if w == "while" || w == "until" || w == "for" {
				whileLine = j
			}
		}
	}
	return len(toks) - 1
}

func matchBrace(src []byte, toks []Tok, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		t := toks[j]
		if t.Kind == KPunct || t.Kind == KLIndex || t.Kind == KLCall {
			switch src[t.Start] {
			case '{', '(', '[':
				depth++
			case '}', ')', ']':
				depth--
				if depth == 0 {
					return j
				}
			}
		}
	}
	return len(toks) - 1
}
