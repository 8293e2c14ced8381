package puppet

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"strconv"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// Chunk cache: the participle grammar parses a chunk in ~30x the time
// decoding its tree takes, so every chunk that parses is kept, encoded
// (codec.go), in the process's file cache (internal/filecache: memory,
// and the user cache directory when the program turns it on), keyed by
// its text and the version of the code that made the tree. Any parser of
// the same text, in this process (another file, a fresh analysis for a
// code action's preview) or a later one, decodes it. Chunks with a syntax
// error are not kept: the error may name the token after the chunk.

// treeFormat names the trees and their encoding; with the build ID of
// the executable (another build may parse differently) it is part of
// every key.
const treeFormat = "puppet-chunk-1"

const cacheKind = "puppet"

var keyPrefix = sync.OnceValue(func() []byte {
	return []byte(treeFormat + "\x00" + executableID() + "\x00")
})

// executableID is the Go build ID of the running program (it changes
// with any change of its code), or its size and time when it has none
// we can read.
func executableID() string {
	exe, err := os.Executable()
	if err != nil {
		return "?"
	}
	f, err := os.Open(exe)
	if err != nil {
		return "?"
	}
	defer f.Close()
	// ELF: the note "Go" of type 4 holds the build ID, in the first 4 KB
	// of the binaries the Go linker writes (read those first: every
	// command-line run does this once, before its first chunk).
	for _, size := range []int{4 << 10, 64 << 10} {
		head := make([]byte, size)
		n, _ := f.ReadAt(head, 0)
		if id, ok := goBuildID(head[:n]); ok {
			return id
		}
		if n < size {
			break
		}
	}
	if st, err := f.Stat(); err == nil {
		return exe + ":" + strconv.FormatInt(st.Size(), 10) + ":" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
	}
	return "?"
}

// goBuildID finds the Go build ID note in the head of an ELF file.
func goBuildID(head []byte) (string, bool) {
	if i := bytes.Index(head, []byte("\x04\x00\x00\x00Go\x00\x00")); i >= 8 && binary.LittleEndian.Uint32(head[i-8:]) == 4 {
		sz := int(binary.LittleEndian.Uint32(head[i-4:]))
		if a := i + 8; sz > 0 && sz < 512 && a+sz <= len(head) {
			return string(head[a : a+sz]), true
		}
	}
	return "", false
}

func chunkKey(text []byte) filecache.Key {
	h := sha256.New()
	h.Write(keyPrefix())
	h.Write(text)
	var k filecache.Key
	h.Sum(k[:0])
	return k
}

// cachedChunk decodes the tree of src[pos:end] from the cache, its nodes
// taken from al.
func cachedChunk(c *filecache.Cache, key filecache.Key, src []byte, pos, end int, al *slabs) ([]Node, bool) {
	data, ok := c.Get(cacheKind, key)
	if !ok {
		return nil, false
	}
	stmts, err := decodeChunkIn(data, src, pos, end, al)
	return stmts, err == nil
}

// storeChunk keeps the tree of src[pos:end].
func storeChunk(c *filecache.Cache, key filecache.Key, src []byte, pos, end int, stmts []Node) {
	c.Set(cacheKind, key, encodeChunk(nil, src, pos, end, stmts))
}

// DropCachePages gives back the pages of the process's chunk cache read
// so far (filecache.Cache.DropPages): a one-shot analysis calls it once
// its files are parsed.
func DropCachePages() { filecache.Shared().DropPages() }
