package lsp

import (
	"strconv"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// file returns the current text of a document (open or on disk).
func (s *Server) file(u string) *source.File {
	return analysis.FileOf(s.ws, u)
}

func (s *Server) enc() source.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.encoding
}

// toRange converts a byte span into an LSP range in the negotiated
// encoding. Unknown files give the empty range at the top.
func (s *Server) toRange(sp source.Span) protocol.Range { return s.converter().rng(sp) }

func (s *Server) toLocation(sp source.Span) protocol.Location { return s.converter().location(sp) }

// converter turns spans into LSP ranges for one answer, looking each
// file up once: a lookup of a file on disk stats it, and publishing a
// workspace's diagnostics converts tens of thousands of spans of a few
// hundred files.
type converter struct {
	s     *Server
	enc   source.Encoding
	files map[string]*source.File
}

func (s *Server) converter() *converter { return &converter{s: s, enc: s.enc()} }

func (c *converter) file(u string) *source.File {
	if f, ok := c.files[u]; ok {
		return f
	}
	f := c.s.file(u)
	if c.files == nil {
		c.files = map[string]*source.File{}
	}
	c.files[u] = f
	return f
}

func (c *converter) rng(sp source.Span) protocol.Range {
	f := c.file(sp.URI)
	if f == nil {
		return protocol.Range{}
	}
	a := f.Position(sp.Start, c.enc)
	b := f.Position(max(sp.End, sp.Start), c.enc)
	return protocol.Range{
		Start: protocol.Position{Line: uint32(a.Line), Character: uint32(a.Col)},
		End:   protocol.Position{Line: uint32(b.Line), Character: uint32(b.Col)},
	}
}

func (c *converter) location(sp source.Span) protocol.Location {
	return protocol.Location{URI: uri.URI(sp.URI), Range: c.rng(sp)}
}

// offset converts an LSP position in a document to a byte offset.
func (s *Server) offset(u string, p protocol.Position) (*source.File, int) {
	f := s.file(u)
	if f == nil {
		return nil, 0
	}
	return f, f.Offset(source.Position{Line: int(p.Line), Col: int(p.Character)}, s.enc())
}

// where renders a span as `file:line` for hover text.
func (s *Server) where(sp source.Span) string {
	f := s.file(sp.URI)
	name := sp.URI
	if p := source.URIToPath(sp.URI); p != "" {
		name = p
		for _, root := range s.ws.Roots() {
			if r := analysis.Rel(root, p); r != p {
				name = r
				break
			}
		}
	}
	if f == nil {
		return name
	}
	l, _ := f.Line1Col1(sp.Start)
	return name + ":" + strconv.Itoa(l)
}

// rangeIn converts a span of v's analysis into a range of the current
// text; false when the text it covered has been edited since.
func (s *Server) rangeIn(v view, sp source.Span) (protocol.Range, bool) {
	sp, ok := v.span(sp)
	if !ok {
		return protocol.Range{}, false
	}
	return s.toRange(sp), true
}

// whereIn is where for spans of v's analysis; an edited place is named by
// its line in the analysed text.
func (s *Server) whereIn(v view) func(source.Span) string {
	if v.m == nil {
		return s.where
	}
	return func(sp source.Span) string {
		if m, ok := v.span(sp); ok {
			return s.where(m)
		}
		return s.where(sp)
	}
}
