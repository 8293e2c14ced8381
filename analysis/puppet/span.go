package puppet

import (
	"sync"
	"sync/atomic"

	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// span is a source.Span with its file as a number (the process's table
// of URIs, fileNums) and its offsets as int32: 12 bytes instead of 32.
// What a catalog holds by the hundred thousand (attributes, issue 25)
// keeps its places this way; they become source.Spans where they leave
// the evaluation (diagnostics, edges, nodes). Files are at most
// maxManifest bytes; a Hiera data file past 2 GB is not read.
type span struct {
	file       uint32
	start, end int32
}

// Span is s as the rest of the program knows it.
func (s span) Span() source.Span {
	if s.file == 0 {
		return source.Span{Start: int(s.start), End: int(s.end)}
	}
	return source.Span{URI: (*fileNums.uris.Load())[s.file], Start: int(s.start), End: int(s.end)}
}

// packSpan is s as a span.
func packSpan(s source.Span) span {
	return span{file: fileNum(s.URI), start: int32(s.Start), end: int32(s.End)}
}

// fileNums numbers URIs for spans, once each for the life of the
// process (a server sees each file it is given; 0 is the empty URI).
// Reading a number's URI takes no lock.
var fileNums struct {
	mu   sync.Mutex
	num  map[string]uint32
	uris atomic.Pointer[[]string]
}

func init() {
	uris := []string{""}
	fileNums.uris.Store(&uris)
	fileNums.num = map[string]uint32{"": 0}
}

// fileNum is uri's number in fileNums, given on first use.
func fileNum(uri string) uint32 {
	fileNums.mu.Lock()
	defer fileNums.mu.Unlock()
	if n, ok := fileNums.num[uri]; ok {
		return n
	}
	// A reader's slice is never longer than the numbers it was given:
	// appending in place past its end races with nobody.
	old := *fileNums.uris.Load()
	n := uint32(len(old))
	uris := append(old, uri)
	fileNums.uris.Store(&uris)
	fileNums.num[uri] = n
	return n
}

// span is l in fi as a span.
func (fi *fileInfo) span(l pp.Loc) span {
	return span{file: fi.num, start: int32(l.Pos), end: int32(l.End)}
}
