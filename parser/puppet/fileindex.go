package puppet

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// File index: where a file's chunks lie, kept in the chunk cache under
// the file's whole text. Cutting a file into chunks lexes all of it (a
// tenth of a warm `order` of a 75 KB manifest, as much again as decoding
// the trees on the other core for a 7.9 MB one); with the index, a file
// parsed before goes straight to its chunks' trees. The chunks are a
// function of the text and of this program (the key holds its build ID,
// as a chunk's does), so the index is never stale; a file with a syntax
// error has none (its chunks are not all cached), and when a chunk's tree
// is missing (trimmed from the cache) the file is cut as before.

const fileIndexKind = "puppet-chunks"

func fileIndexKey(src []byte) filecache.Key {
	h := sha256.New()
	h.Write(keyPrefix())
	h.Write([]byte("file\x00"))
	h.Write(src)
	var k filecache.Key
	h.Sum(k[:0])
	return k
}

// storeFileIndex keeps where f's chunks lie, when every chunk parsed.
func storeFileIndex(c *filecache.Cache, src []byte, chunks []Chunk) {
	if len(chunks) == 0 {
		return
	}
	out := make([]byte, 0, 4*len(chunks))
	at := 0
	for _, ch := range chunks {
		if ch.Err != nil || ch.Pos < at || ch.End < ch.Pos {
			return
		}
		out = binary.AppendUvarint(out, uint64(ch.Pos-at))
		out = binary.AppendUvarint(out, uint64(ch.End-ch.Pos))
		at = ch.End
	}
	c.Set(fileIndexKind, fileIndexKey(src), out)
}

// indexedChunks reads the chunks' places from the index of src: nil when
// there is none or it does not fit src.
func indexedChunks(c *filecache.Cache, src []byte) []Loc {
	data, ok := c.Get(fileIndexKind, fileIndexKey(src))
	if !ok {
		return nil
	}
	var locs []Loc
	at := 0
	for len(data) > 0 {
		gap, n := binary.Uvarint(data)
		if n <= 0 {
			return nil
		}
		data = data[n:]
		size, n := binary.Uvarint(data)
		if n <= 0 || gap > uint64(len(src)-at) || size > uint64(len(src)-at)-gap {
			return nil
		}
		data = data[n:]
		pos := at + int(gap)
		at = pos + int(size)
		locs = append(locs, Loc{pos, at})
	}
	return locs
}

// decodeIndexed decodes the trees of the chunks at locs into f (on
// workers for a big file), as a first parse would have left them; false
// when a tree is not in the cache.
func (cx *chunker) decodeIndexed(f *File, locs []Loc) bool {
	workers := 1
	if len(cx.src) >= parallelMin {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers <= 1 {
		chunks := make([]Chunk, len(locs))
		for i, l := range locs {
			if !cx.cachedAt(&chunks[i], l) {
				return false
			}
		}
		f.Chunks = chunks
		f.Stmts = make([]Node, 0, countStmts(chunks))
		for _, c := range chunks {
			f.Stmts = append(f.Stmts, c.Stmts...)
		}
		f.Errors = append(f.Errors, topLevelChecks(f.Stmts)...)
		for _, c := range chunks {
			f.Errors = append(f.Errors, c.nested...)
		}
		cx.decoded = len(chunks)
		return true
	}
	// Batches of about equal text, several per worker, taken in turn.
	nb := 4 * workers
	per := len(cx.src)/nb + 1
	type batch struct {
		a, b     int // locs[a:b]
		reserved []Error
	}
	var batches []batch
	for a := 0; a < len(locs); {
		b := a + 1
		for b < len(locs) && locs[b].End-locs[a].Pos < per {
			b++
		}
		batches = append(batches, batch{a: a, b: b})
		a = b
	}
	chunks := make([]Chunk, len(locs))
	var next atomic.Int32
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &chunker{src: cx.src, cache: cx.cache}
			var stmts []Node
			for !failed.Load() {
				k := int(next.Add(1)) - 1
				if k >= len(batches) {
					return
				}
				bt := &batches[k]
				stmts = stmts[:0]
				for i := bt.a; i < bt.b; i++ {
					if !w.cachedAt(&chunks[i], locs[i]) {
						failed.Store(true)
						return
					}
					stmts = append(stmts, chunks[i].Stmts...)
				}
				bt.reserved = topLevelChecks(stmts)
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return false
	}
	f.Chunks = chunks
	f.Stmts = make([]Node, 0, countStmts(chunks))
	for _, c := range chunks {
		f.Stmts = append(f.Stmts, c.Stmts...)
	}
	for _, bt := range batches {
		f.Errors = append(f.Errors, bt.reserved...)
	}
	for _, c := range chunks {
		f.Errors = append(f.Errors, c.nested...)
	}
	cx.decoded = len(chunks)
	return true
}

// cachedAt decodes the chunk at l from the cache into c.
func (cx *chunker) cachedAt(c *Chunk, l Loc) bool {
	text := cx.src[l.Pos:l.End]
	stmts, ok := cachedChunk(cx.cache, chunkKey(text), cx.src, l.Pos, l.End, &cx.al)
	if !ok {
		return false
	}
	*c = Chunk{Loc: l, Stmts: stmts, hash: maphash.Bytes(seed, text), nested: nestedDefinitions(stmts, true)}
	return true
}

func countStmts(chunks []Chunk) int {
	n := 0
	for _, c := range chunks {
		n += len(c.Stmts)
	}
	return n
}
