package lsp

import (
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// flatTokens are a text's tokens as the system that owns it gives them,
// flattened (FlattenTokens), kept for the last few texts: an edit asks
// for the tokens of the text before it (is the edit only comments and
// blank lines? layout_edit.go) and of the text after it, which the
// client's semantic tokens request then asks for again. On a 10,000-line
// manifest each costs a walk of the whole tree (~5 ms); a text is never
// tokenized twice while it is among the last few.
type flatTokens struct {
	mu      sync.Mutex
	entries []flatEntry // newest last
}

type flatEntry struct {
	f    *source.File // a text is immutable: its pointer is its identity
	toks []analysis.Token
}

// flatKeep bounds the texts kept: the open documents' current and
// previous texts, for a few documents edited in turn.
const flatKeep = 8

// tokensOf returns the flat tokens of f (nil when no system tokenizes it).
func (s *Server) tokensOf(u string, f *source.File) []analysis.Token {
	c := &s.flat
	c.mu.Lock()
	for i := len(c.entries) - 1; i >= 0; i-- {
		if c.entries[i].f == f {
			toks := c.entries[i].toks
			c.mu.Unlock()
			return toks
		}
	}
	c.mu.Unlock()
	var toks []analysis.Token
	for _, sys := range s.owners(u, f) {
		if tk, ok := sys.(analysis.Tokenizer); ok {
			toks = analysis.FlattenTokens(tk.Tokens(f), f.Text)
			break
		}
	}
	c.mu.Lock()
	c.entries = append(c.entries, flatEntry{f, toks})
	if len(c.entries) > flatKeep {
		c.entries = append(c.entries[:0:0], c.entries[len(c.entries)-flatKeep:]...)
	}
	c.mu.Unlock()
	return toks
}
