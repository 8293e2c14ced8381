// Package source holds the text of the files being analysed and the single
// place where byte offsets become editor positions.
//
// Every syntax tree, graph node, edge and diagnostic in this project carries
// byte offsets into a File. Converting them to line/column happens only
// here, so UTF-16 (the LSP default), UTF-8 and rune columns can never drift
// apart between the language server and the command line.
package source

import (
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// File is one document: its URI as the client (or the CLI) named it, the
// local path when it has one, and its text.
type File struct {
	URI  string
	Path string // "" for documents that only live in the editor (untitled:)
	Text []byte
	// Language is the editor's languageId for open documents ("" for
	// files read from disk); it decides ownership of untitled buffers.
	Language string

	lines []int // byte offset of the start of each line, built lazily
}

// NewFile builds a File. The URI is the identity; path may be empty.
func NewFile(uri, path string, text []byte) *File {
	return &File{URI: uri, Path: path, Text: text}
}

// FileFromPath builds a File for a local path, with a file:// URI.
func FileFromPath(path string, text []byte) *File {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return &File{URI: PathToURI(abs), Path: abs, Text: text}
}

// Span is a half-open byte range [Start, End) in the file named by URI.
type Span struct {
	URI        string
	Start, End int
}

// Contains reports whether off lies in the span; an empty span contains
// its own start so that zero-width markers can still be hovered.
func (s Span) Contains(off int) bool {
	if s.Start == s.End {
		return off == s.Start
	}
	return off >= s.Start && off <= s.End
}

// IsZero reports whether the span was never set.
func (s Span) IsZero() bool { return s.URI == "" }

// Encoding is the unit columns are counted in.
type Encoding int

const (
	UTF16 Encoding = iota // LSP default
	UTF8                  // bytes; negotiated by clients that support it, and the CLI
	UTF32                 // code points
)

// Position is a zero-based line and column in some Encoding.
type Position struct {
	Line, Col int
}

func (f *File) lineStarts() []int {
	if f.lines == nil {
		ls := make([]int, 1, 64)
		for i, b := range f.Text {
			if b == '\n' {
				ls = append(ls, i+1)
			}
		}
		f.lines = ls
	}
	return f.lines
}

// LineCount is the number of lines (a trailing newline starts an empty one).
func (f *File) LineCount() int { return len(f.lineStarts()) }

// LineStart is the byte offset where zero-based line starts.
func (f *File) LineStart(line int) int {
	ls := f.lineStarts()
	if line < 0 {
		return 0
	}
	if line >= len(ls) {
		return len(f.Text)
	}
	return ls[line]
}

// Position converts a byte offset to a position in enc. Offsets past the
// end clamp to the end; an offset inside a multi-byte character counts as
// the start of that character.
func (f *File) Position(off int, enc Encoding) Position {
	if off < 0 {
		off = 0
	}
	if off > len(f.Text) {
		off = len(f.Text)
	}
	ls := f.lineStarts()
	line := sort.Search(len(ls), func(i int) bool { return ls[i] > off }) - 1
	start := ls[line]
	return Position{Line: line, Col: columnOf(f.Text[start:off], enc)}
}

func columnOf(prefix []byte, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(prefix)
	}
	n := 0
	for len(prefix) > 0 {
		r, size := utf8.DecodeRune(prefix)
		if r == utf8.RuneError && size <= 1 {
			// Invalid byte: count it as one unit so columns stay monotonic.
			n++
			prefix = prefix[1:]
			continue
		}
		if enc == UTF16 && r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		prefix = prefix[size:]
	}
	return n
}

// Cursor converts the offsets of one file to positions in enc, walking
// forward from the last offset asked: a caller that asks in increasing
// order (semantic tokens) pays for the text once, not for each offset's
// line again (a minified JSON export is one line of a megabyte). An
// offset before the last one starts over from its line.
type Cursor struct {
	f    *File
	enc  Encoding
	line int // line of off
	off  int // last offset converted
	col  int // its column
}

// Cursor returns a cursor at the start of the file.
func (f *File) Cursor(enc Encoding) *Cursor {
	return &Cursor{f: f, enc: enc}
}

// Position converts off as File.Position does.
func (c *Cursor) Position(off int) Position {
	f := c.f
	off = min(max(off, 0), len(f.Text))
	ls := f.lineStarts()
	if off < len(f.Text) && !utf8.RuneStart(f.Text[off]) {
		return f.Position(off, c.enc) // inside a character: as File.Position counts it
	}
	if off < c.off {
		p := f.Position(off, c.enc)
		c.line, c.off, c.col = p.Line, off, p.Col
		return p
	}
	for c.line+1 < len(ls) && ls[c.line+1] <= off {
		c.line++
		c.off, c.col = ls[c.line], 0
	}
	c.col += columnOf(f.Text[c.off:off], c.enc)
	c.off = off
	return Position{Line: c.line, Col: c.col}
}

// Offset converts a position in enc back to a byte offset, clamping to the
// line's end (clients may send a column past it) and to the file.
func (f *File) Offset(p Position, enc Encoding) int {
	ls := f.lineStarts()
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(ls) {
		return len(f.Text)
	}
	start := ls[p.Line]
	end := len(f.Text)
	if p.Line+1 < len(ls) {
		end = ls[p.Line+1] - 1 // the '\n'
	}
	if enc == UTF8 {
		if start+p.Col > end {
			return end
		}
		return start + max(p.Col, 0)
	}
	col := 0
	i := start
	for i < end && col < p.Col {
		r, size := utf8.DecodeRune(f.Text[i:end])
		w := 1
		if enc == UTF16 && r != utf8.RuneError && utf16.RuneLen(r) == 2 {
			w = 2
		}
		if r == utf8.RuneError && size <= 1 {
			size = 1
		}
		col += w
		i += size
	}
	return i
}

// Line1Col1 is the 1-based line and 1-based byte column used by `check`
// output (the convention of compilers and `go vet`).
func (f *File) Line1Col1(off int) (int, int) {
	p := f.Position(off, UTF8)
	return p.Line + 1, p.Col + 1
}

// PathToURI makes a file:// URI from an absolute path.
func PathToURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

// URIToPath returns the local path of a file:// URI, or "" for any other
// scheme (untitled:, etc.): those documents exist only in the editor.
func URIToPath(uri string) string {
	if !strings.HasPrefix(uri, "file:") {
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	return filepath.FromSlash(u.Path)
}
