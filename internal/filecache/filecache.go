// Package filecache keeps values computed from file contents (a parsed
// chunk's syntax tree) so that the next parser of the same text, in this
// process or the next one, decodes it instead of computing it again.
//
// A value is found by a SHA-256 key of everything it was computed from
// (the text and the version of the code that computed it), as in gopls's
// file cache, so there is nothing to invalidate. On disk the values live
// in packs (pack.go): each run that computed new values writes them all
// as one file, once, atomically (a temporary file renamed into place), at
// Flush or when no value has come for a moment; one file per value had
// cost a cold run of a large workspace more CPU in file creation than the
// parse it saved. A run maps the packs it finds when it starts, checking
// only their headers, so that starting costs the same whatever the cache
// holds (every command-line run starts, and most ask for a few values
// out of hundreds of thousands); a lookup is a binary search of a pack's
// sorted index, in the mapping, newest pack first, and the value is read
// where it lies. The directory is kept under a size budget: a write that
// finds too many packs merges the newest, small ones into its own (a big
// pack only once they add up to half of it), newest values first, up to
// the budget; and the packs used least recently (by modification time,
// which a hit refreshes) are deleted. A pack that is truncated, has a damaged
// header or is not ours (another program's, or an older version of the
// format) is not opened and all it holds is a miss; a damaged index entry
// or value fails the checksum that covers both and is a miss, never
// another value. In front of the disk, every value set or read
// in this process is kept in memory (up to a budget), shared by all who
// ask: a fresh analysis of the same workspace (a code action's preview)
// decodes from memory.
package filecache

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	// skipDiskHits: values read from disk are not kept in memory too
	// (SetKeepDiskHits).
	skipDiskHits bool

	dir    string  // "" when nothing is kept on disk
	budget int64   // bytes on disk before the oldest packs go
	packs  []*pack // newest first: the first that holds a key answers

	pending      []write // set since the last pack was written
	pendingBytes int
	timer        *time.Timer
	writing      sync.Mutex     // one pack written at a time
	wg           sync.WaitGroup // trimming under way

	// Hits and misses on disk, values and packs written, for tests and
	// benchmarks.
	DiskHits, DiskMisses, DiskWrites, PackWrites int
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
	return &Cache{mem: map[memKey][]byte{}, memMax: memMax, budget: DefaultBudget}
}

// DefaultBudget is the size the cache directory is trimmed to.
const DefaultBudget = 512 << 20

// writeDelay is how long a long-running process waits after the last new
// value before it writes them as a pack (a variable for tests).
var writeDelay = 2 * time.Second

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

// SetDir makes the cache keep values under dir ("" keeps nothing on
// disk): it writes what is pending to the old directory, maps the packs
// of the new one, and trims it to the budget in the background (at most
// once an hour, whichever process does it).
func (c *Cache) SetDir(dir string) {
	c.Flush()
	packs := openPacks(filepath.Join(dir, packDir))
	if dir == "" {
		packs = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dir = dir
	c.packs = packs
	if dir == "" {
		return
	}
	c.wg.Add(1)
	go func(budget int64) {
		defer c.wg.Done()
		trim(dir, budget)
	}(c.budget)
}

// DropPages gives back the memory of the packs' pages read so far, which
// a process counts as its own while it keeps them: a one-shot command
// that has read what it needed (the 100k-resource manifest's chunks were
// 8.7 MB of its peak RSS). A pack is mapped for the life of the process
// and never written in place, so a value read later is read from the
// file again.
func (c *Cache) DropPages() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.packs {
		dropPages(p.data)
	}
}

// SetBudget sets the size the directory is trimmed to.
func (c *Cache) SetBudget(n int64) {
	c.mu.Lock()
	c.budget = n
	c.mu.Unlock()
}

// DiskDir is the directory values are kept in ("" when none).
func (c *Cache) DiskDir() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dir
}

// Get returns the value of key, from memory or disk. The slice must not
// be modified (it may be a read-only mapping of a pack).
func (c *Cache) Get(kind string, key Key) ([]byte, bool) {
	mk := memKey{kind, key}
	c.mu.Lock()
	if v, ok := c.mem[mk]; ok {
		c.mu.Unlock()
		return v, true
	}
	packs := c.packs
	c.mu.Unlock()
	v, p, ok := lookup(packs, kind, &key) // outside the lock
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir == "" {
		return nil, false
	}
	if !ok {
		c.DiskMisses++
		return nil, false
	}
	c.DiskHits++
	if !c.skipDiskHits {
		c.remember(mk, v)
	}
	p.used()
	return v, true
}

// SetKeepDiskHits says whether a value read from disk is kept in memory
// too (by default it is: a server decodes the same chunks again for a
// fresh analysis). A one-shot command reads each value once: keeping the
// 100,000 chunks of a generated manifest cost it a 12 MB map and 6% of
// its CPU. A pack's mapping outlives the Cache, so what Get returned
// stays valid either way.
func (c *Cache) SetKeepDiskHits(keep bool) {
	c.mu.Lock()
	c.skipDiskHits = !keep
	c.mu.Unlock()
}

// Set records the value of key (which the cache owns from now on): in
// memory at once, on disk with the next pack (Flush, or writeDelay after
// the last Set).
func (c *Cache) Set(kind string, key Key, val []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remember(memKey{kind, key}, val)
	if c.dir == "" {
		return
	}
	c.pending = append(c.pending, write{kind, key, val})
	c.pendingBytes += len(val)
	if c.timer == nil {
		c.timer = time.AfterFunc(writeDelay, func() { c.writePending() })
	} else {
		c.timer.Reset(writeDelay)
	}
}

// Flush writes every value set so far to disk and waits for the trimming
// SetDir started (a command-line run calls it before it exits).
func (c *Cache) Flush() {
	c.writePending()
	c.wg.Wait()
}

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

// maxPacks is how many packs a write may leave; past it, the write
// merges some of them into its own (mergeCount).
const maxPacks = 8

// mergeCount is how many of old (newest first) a write of pending bytes
// merges into its pack: the newest ones, each no bigger than twice all
// merged before it, and more only as far as maxPacks needs. Merging them
// all had a server rewrite a 140 MB pack every eighth pause in typing to
// carry a few kilobytes of new values; this way a big pack is rewritten
// once the small ones add up to half of it.
func mergeCount(old []*pack, pending int) int {
	if len(old)+1 <= maxPacks {
		return 0
	}
	k, size := 0, pending
	for k < len(old) && len(old[k].data) <= 2*size {
		size += len(old[k].data)
		k++
	}
	return max(k, len(old)+1-maxPacks)
}

// writePending writes the values set since the last pack as a new pack
// (merging some of the packs already there into it when there are too
// many), and reads its values from there from now on.
func (c *Cache) writePending() {
	c.writing.Lock()
	defer c.writing.Unlock()
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	pending, size, dir, old, budget := c.pending, c.pendingBytes, c.dir, c.packs, c.budget
	c.pending, c.pendingBytes = nil, 0
	c.mu.Unlock()
	if len(pending) == 0 || dir == "" {
		return
	}
	merged := old[:mergeCount(old, size)]
	var carried []write
	if len(merged) > 0 {
		carried = liveValues(merged, pending, budget*3/4)
	}
	p, err := writePack(filepath.Join(dir, packDir), append(pending, carried...))
	if err != nil {
		return
	}
	for _, o := range merged {
		os.Remove(o.path)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.DiskWrites += len(pending)
	c.PackWrites++
	if c.dir != dir {
		return
	}
	packs := []*pack{p}
	for _, q := range c.packs {
		if !slices.Contains(merged, q) {
			packs = append(packs, q)
		}
	}
	c.packs = packs
}

// trimEvery is how often a directory is trimmed (a variable for tests).
var trimEvery = time.Hour

// trim deletes the least recently used files of dir until it holds at
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

// Trim deletes the least recently used files of dir (packs, and the
// single-value entries earlier versions wrote) until it holds at most 3/4
// of budget bytes (when it holds more than budget), and temporary files
// older than an hour.
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
