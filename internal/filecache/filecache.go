// Package filecache keeps values computed from file contents (a parsed
// chunk's syntax tree) so that the next parser of the same text, in this
// process or the next one, decodes it instead of computing it again.
//
// It follows the design of gopls's file cache: a value is found by a
// SHA-256 key of everything it was computed from (the text and the
// version of the code that computed it), so there is nothing to
// invalidate; entries are files under the user cache directory, each
// written to a temporary file and renamed into place, so a reader sees a
// whole entry or none; the directory is kept under a size budget by
// deleting the entries used least recently (by modification time, which a
// hit refreshes); an entry that is truncated, corrupt or not what its name
// says (a foreign file, another version's format) fails its checks and is
// a miss. In front of the disk, every value set or read in this process is
// kept in memory (up to a budget), shared by all who ask: a fresh analysis
// of the same workspace (a code action's preview) decodes from memory.
package filecache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Key names a value: the SHA-256 of what it was computed from.
type Key [32]byte

// Cache is a memory cache in front of an optional directory.
type Cache struct {
	mu       sync.Mutex
	mem      map[memKey][]byte
	fifo     []memKey // insertion order, for eviction from memory
	memBytes int
	memMax   int

	dir    string // "" when nothing is kept on disk
	budget int64  // bytes on disk before the oldest entries go
	made   map[string]bool
	queue  chan write
	wg     sync.WaitGroup // pending writes

	// Hits and misses on disk, for tests and benchmarks.
	DiskHits, DiskMisses, DiskWrites int
}

type memKey struct {
	kind string
	key  Key
}

type write struct {
	kind string
	key  Key
	val  []byte
}

// New returns a cache keeping up to memMax bytes of values in memory and
// nothing on disk until SetDir.
func New(memMax int) *Cache {
	return &Cache{mem: map[memKey][]byte{}, memMax: memMax, budget: DefaultBudget, made: map[string]bool{}}
}

// DefaultBudget is the size the cache directory is trimmed to.
const DefaultBudget = 512 << 20

var shared = New(256 << 20)

// Shared is the cache of the process: every parser uses it.
func Shared() *Cache { return shared }

// Dir is where the cache lives by default: $ORDERING_CACHE_DIR, or
// ordering-lsp/ under the user cache directory; "" when ORDERING_CACHE
// is "off" (or "0", "false") or there is no such directory.
func Dir() string {
	switch strings.ToLower(os.Getenv("ORDERING_CACHE")) {
	case "off", "0", "false", "no":
		return ""
	}
	if d := os.Getenv("ORDERING_CACHE_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "ordering-lsp")
}

// SetDir makes the cache keep entries under dir ("" keeps nothing on
// disk) and trims the directory to the budget in the background (at most
// once an hour, whichever process does it).
func (c *Cache) SetDir(dir string) {
	c.Flush()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dir = dir
	c.made = map[string]bool{}
	if dir == "" {
		return
	}
	if c.queue == nil {
		c.queue = make(chan write, 256)
		go c.writer()
	}
	c.wg.Add(1)
	go func(budget int64) {
		defer c.wg.Done()
		trim(dir, budget)
	}(c.budget)
}

// SetBudget sets the size the directory is trimmed to.
func (c *Cache) SetBudget(n int64) {
	c.mu.Lock()
	c.budget = n
	c.mu.Unlock()
}

// DiskDir is the directory entries are kept in ("" when none).
func (c *Cache) DiskDir() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dir
}

// Get returns the value of key, from memory or disk. The slice must not
// be modified.
func (c *Cache) Get(kind string, key Key) ([]byte, bool) {
	c.mu.Lock()
	if v, ok := c.mem[memKey{kind, key}]; ok {
		c.mu.Unlock()
		return v, true
	}
	dir := c.dir
	c.mu.Unlock()
	if dir == "" {
		return nil, false
	}
	v, ok := readEntry(entryPath(dir, kind, key), key)
	c.mu.Lock()
	if ok {
		c.DiskHits++
		c.remember(memKey{kind, key}, v)
	} else {
		c.DiskMisses++
	}
	c.mu.Unlock()
	return v, ok
}

// Set records the value of key (which the cache owns from now on): in
// memory at once, on disk in the background (Flush waits for it).
func (c *Cache) Set(kind string, key Key, val []byte) {
	c.mu.Lock()
	c.remember(memKey{kind, key}, val)
	dir := c.dir
	c.mu.Unlock()
	if dir == "" {
		return
	}
	c.wg.Add(1)
	c.queue <- write{kind, key, val}
}

// Flush waits until every value set so far is on disk, and the trimming
// SetDir started has finished (a command-line run calls it before it
// exits).
func (c *Cache) Flush() { c.wg.Wait() }

func (c *Cache) remember(key memKey, val []byte) {
	if len(val) > c.memMax/8 {
		return
	}
	if _, ok := c.mem[key]; ok {
		return
	}
	for c.memBytes+len(val) > c.memMax && len(c.fifo) > 0 {
		old := c.fifo[0]
		c.fifo = c.fifo[1:]
		c.memBytes -= len(c.mem[old])
		delete(c.mem, old)
	}
	c.mem[key] = val
	c.fifo = append(c.fifo, key)
	c.memBytes += len(val)
}

func (c *Cache) writer() {
	for w := range c.queue {
		c.mu.Lock()
		dir := c.dir
		c.mu.Unlock()
		if dir != "" && c.writeEntry(dir, w) == nil {
			c.mu.Lock()
			c.DiskWrites++
			c.mu.Unlock()
		}
		c.wg.Done()
	}
}

// An entry is magic, the key, the value's length, the value, and a
// CRC-32C of all that: a file that is not whole, not ours or not for
// this key fails one of the checks.
var magic = []byte("ordlsp\x00\x01")

const headerLen = 8 + 32 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func entryPath(dir, kind string, key Key) string {
	const hexd = "0123456789abcdef"
	var name [64]byte
	for i, b := range key {
		name[2*i], name[2*i+1] = hexd[b>>4], hexd[b&15]
	}
	return filepath.Join(dir, kind, string(name[:2]), string(name[2:]))
}

// encodeEntry frames val for disk.
func encodeEntry(key Key, val []byte) []byte {
	out := make([]byte, 0, headerLen+len(val)+4)
	out = append(out, magic...)
	out = append(out, key[:]...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(val)))
	out = append(out, val...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

var errBadEntry = errors.New("filecache: bad entry")

// decodeEntry checks a file's bytes and returns the value they hold.
func decodeEntry(data []byte, key Key) ([]byte, error) {
	if len(data) < headerLen+4 || !bytes.Equal(data[:8], magic) || !bytes.Equal(data[8:40], key[:]) {
		return nil, errBadEntry
	}
	n := binary.LittleEndian.Uint32(data[40:44])
	if uint64(n) != uint64(len(data)-headerLen-4) {
		return nil, errBadEntry
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errBadEntry
	}
	return body[headerLen:], nil
}

// readEntry reads and checks one entry; a hit not refreshed for an hour
// gets a new modification time, which is what trimming goes by.
func readEntry(path string, key Key) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() > 1<<30 {
		return nil, false
	}
	data := make([]byte, st.Size())
	if _, err := readFull(f, data); err != nil {
		return nil, false
	}
	v, err := decodeEntry(data, key)
	if err != nil {
		return nil, false
	}
	if now := time.Now(); now.Sub(st.ModTime()) > time.Hour {
		os.Chtimes(path, now, now)
	}
	return v, true
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writeEntry writes a temporary file next to the entry and renames it
// into place: concurrent readers and writers (other processes) see a
// whole entry or none.
func (c *Cache) writeEntry(dir string, w write) error {
	path := entryPath(dir, w.kind, w.key)
	sub := filepath.Dir(path)
	c.mu.Lock()
	made := c.made[sub]
	c.mu.Unlock()
	if !made {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		c.mu.Lock()
		c.made[sub] = true
		c.mu.Unlock()
	}
	tmp, err := os.CreateTemp(sub, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(encodeEntry(w.key, w.val))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// trimEvery is how often a directory is trimmed (a variable for tests).
var trimEvery = time.Hour

// trim deletes the least recently used entries of dir until it holds at
// most 3/4 of budget bytes, and temporary files a crashed writer left.
// A stamp file's modification time says when it last ran.
func trim(dir string, budget int64) {
	stamp := filepath.Join(dir, "trimmed")
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < trimEvery {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	os.WriteFile(stamp, []byte(strconv.FormatInt(time.Now().Unix(), 10)), 0o644)
	Trim(dir, budget)
}

// Trim deletes the least recently used entries of dir until it holds at
// most 3/4 of budget bytes (when it holds more than budget), and
// temporary files older than an hour.
func Trim(dir string, budget int64) {
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var all []entry
	var total int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "trimmed" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				os.Remove(p)
			}
			return nil
		}
		all = append(all, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if total <= budget {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, e := range all {
		if total <= budget*3/4 {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
}
