package filecache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A pack is one file holding many values:
//
//	magic          8 bytes, "ordpack\x02"
//	size           uint64, of the whole file
//	count          uint32, of entries
//	kinds          uint16 n (at most 256), then n times: length (uint8),
//	               kind
//	CRC-32         uint32 of all the above (the header)
//	index          count entries of 48 bytes, sorted by key then kind:
//	               key (32 bytes), kind (uint16, its place in kinds),
//	               zero (uint16), offset (uint32), length (uint32),
//	               CRC-32 (uint32) of the entry's first 44 bytes then
//	               the value
//	values
//
// all little-endian. Opening a pack reads and checks its header only (a
// read of the file: see openPack), so that opening costs the same
// whatever the pack holds: a
// run that asks for a thousand values must not first read an index of
// hundreds of thousands. A lookup is a binary search of the index in the
// mapping; the entry it finds is checked when its value is read (bounds,
// then one checksum that covers the entry and the value together), so a
// damaged entry, a damaged value or a truncated pack is a miss, never
// another value. Packs are never modified: written whole under a
// temporary name and renamed, deleted whole.
//
// Version 1 packs (magic "ordpack\x01", whose index had to be parsed
// whole) are not opened: their keys hold the build ID of the program
// that wrote them (parser/puppet/chunkcache.go), which is never this one,
// so they could only ever miss; trimming deletes them with the packs
// least recently used, and until then the older program that wrote them
// still reads them.
var packMagic = []byte("ordpack\x02")

const packDir = "packs"

const (
	entrySize   = 48
	headerFixed = 8 + 8 + 4 + 2 // magic, size, count, number of kinds
	maxPackSize = 1<<31 - 1     // offsets are uint32; a pack is under the budget anyway
	maxKinds    = 256
	maxHeader   = headerFixed + maxKinds*256 + 4
)

// The checksums are CRC-32 (IEEE), which the hardware computes here and
// whose tables cost ~20 us to make: CRC-32C's cost ~0.3 ms, before any
// value was read, in every run.

var errBadPack = errors.New("filecache: bad pack")

type pack struct {
	path  string
	data  []byte   // mapped read-only, for the life of the process
	kinds []string // the kinds of the header, by number
	index []byte   // data[start of index : end of index]
	vals  int      // where the values start in data

	once sync.Once // a hit refreshes the modification time, once a run
}

// used marks the pack as used, for trimming (which goes by modification
// time): once per run, when it was last marked over an hour ago.
func (p *pack) used() {
	p.once.Do(func() {
		go func() {
			if st, err := os.Stat(p.path); err == nil && time.Since(st.ModTime()) > time.Hour {
				now := time.Now()
				os.Chtimes(p.path, now, now)
			}
		}()
	})
}

// header is what a pack's header says.
type header struct {
	kinds        []string
	index, count int // where the index starts, how many entries it holds
}

// errShort: the header goes on past the bytes given.
var errShort = errors.New("filecache: header goes on")

// parseHeader checks the header of a pack of size bytes, whose first
// bytes head holds (nothing of the index is read).
func parseHeader(head []byte, size int) (header, error) {
	d := head
	if len(d) < headerFixed || !bytes.Equal(d[:8], packMagic) {
		return header{}, errBadPack
	}
	if binary.LittleEndian.Uint64(d[8:]) != uint64(size) {
		return header{}, errBadPack // truncated, or bytes appended
	}
	count := uint64(binary.LittleEndian.Uint32(d[16:]))
	nk := int(binary.LittleEndian.Uint16(d[20:]))
	if nk > maxKinds {
		return header{}, errBadPack
	}
	at := headerFixed
	short := func() error {
		if len(d) < size {
			return errShort
		}
		return errBadPack
	}
	kinds := make([]string, 0, min(nk, 16))
	for range nk {
		if at >= len(d) {
			return header{}, short()
		}
		kl := int(d[at])
		at++
		if at+kl > len(d) {
			return header{}, short()
		}
		kinds = append(kinds, internKind(d[at:at+kl]))
		at += kl
	}
	if at+4 > len(d) {
		return header{}, short()
	}
	if crc32.ChecksumIEEE(d[:at]) != binary.LittleEndian.Uint32(d[at:]) {
		return header{}, errBadPack
	}
	at += 4
	if count > uint64(size-at)/entrySize {
		return header{}, errBadPack
	}
	return header{kinds: kinds, index: at, count: int(count)}, nil
}

// packOf returns the pack that data holds whole.
func packOf(path string, data []byte) (*pack, error) {
	h, err := parseHeader(data, len(data))
	if err != nil {
		return nil, err
	}
	end := h.index + h.count*entrySize
	return &pack{path: path, data: data, kinds: h.kinds, index: data[h.index:end], vals: end}, nil
}

// kinds interns the kinds of packs' headers: a handful of words, one
// string each rather than one per pack.
var kinds = &internTable{m: map[string]string{}}

type internTable struct {
	mu sync.Mutex
	m  map[string]string
}

func internKind(b []byte) string {
	t := kinds
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	if len(t.m) >= 256 {
		return string(b) // not a handful after all (a damaged pack)
	}
	s := string(b)
	t.m[s] = s
	return s
}

// count is how many entries p's index holds.
func (p *pack) count() int { return len(p.index) / entrySize }

// entry returns the i-th entry of p's index.
func (p *pack) entry(i int) []byte { return p.index[i*entrySize : (i+1)*entrySize] }

// value returns the value of the i-th entry if its bounds and checksum
// hold.
func (p *pack) value(i int) ([]byte, bool) {
	e := p.entry(i)
	off := uint64(binary.LittleEndian.Uint32(e[36:]))
	n := uint64(binary.LittleEndian.Uint32(e[40:]))
	if off < uint64(p.vals) || off+n > uint64(len(p.data)) {
		return nil, false
	}
	v := p.data[off : off+n]
	crc := crc32.Update(crc32.ChecksumIEEE(e[:44]), crc32.IEEETable, v)
	return v, crc == binary.LittleEndian.Uint32(e[44:])
}

// find returns the place in p's index of the entry for kind and key, or
// -1.
func (p *pack) find(kind string, key *Key) int {
	k := -1
	for i, s := range p.kinds {
		if s == kind {
			k = i
			break
		}
	}
	if k < 0 {
		return -1
	}
	n := p.count()
	i := sort.Search(n, func(i int) bool { return compareEntry(p.entry(i), key, k) >= 0 })
	if i < n && compareEntry(p.entry(i), key, k) == 0 {
		return i
	}
	return -1
}

// compareEntry orders entry e against key and kind number k.
func compareEntry(e []byte, key *Key, k int) int {
	if c := bytes.Compare(e[:32], key[:]); c != 0 {
		return c
	}
	return int(binary.LittleEndian.Uint16(e[32:])) - k
}

// get returns the value of kind and key in p, if p holds it and its
// checks hold.
func (p *pack) get(kind string, key *Key) ([]byte, bool) {
	i := p.find(kind, key)
	if i < 0 {
		return nil, false
	}
	return p.value(i)
}

// encodePack lays ws out as a pack (sorted, and without duplicates: a
// key names one value).
func encodePack(given []write) ([]byte, error) {
	type placed struct {
		write
		seq int // its place in given
	}
	ws := make([]placed, len(given))
	for i, w := range given {
		ws[i] = placed{w, i}
	}
	kindNum := map[string]int{}
	var kindList []string
	for _, w := range ws {
		if len(w.kind) > 255 {
			return nil, errBadPack
		}
		if _, ok := kindNum[w.kind]; !ok {
			if len(kindList) == maxKinds {
				return nil, errBadPack
			}
			kindNum[w.kind] = len(kindList)
			kindList = append(kindList, w.kind)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool {
		if c := bytes.Compare(ws[i].key[:], ws[j].key[:]); c != 0 {
			return c < 0
		}
		return kindNum[ws[i].kind] < kindNum[ws[j].kind]
	})
	uniq := ws[:0]
	for i, w := range ws {
		if i > 0 && w.key == ws[i-1].key && w.kind == ws[i-1].kind {
			continue // the first set wins, as in memory
		}
		uniq = append(uniq, w)
	}
	ws = uniq
	head := headerFixed + 4
	for _, k := range kindList {
		head += 1 + len(k)
	}
	total := head + len(ws)*entrySize
	for _, w := range ws {
		total += len(w.val)
	}
	if total > maxPackSize {
		return nil, errBadPack
	}
	// The values lie in the order they were given, not the index's: the
	// values one run set are read together by the next run, and in key
	// order (keys are hashes) a merged pack scattered them one a page:
	// a warm check of the 100k manifest touched 120 MB of a 190 MB pack
	// for its 9 MB of values.
	at := make([]int, len(ws))
	for i := range at {
		at[i] = i
	}
	sort.Slice(at, func(i, j int) bool { return ws[at[i]].seq < ws[at[j]].seq })
	offs := make([]int, len(ws))
	off := head + len(ws)*entrySize
	for _, i := range at {
		offs[i] = off
		off += len(ws[i].val)
	}
	out := make([]byte, 0, total)
	out = append(out, packMagic...)
	out = binary.LittleEndian.AppendUint64(out, uint64(total))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(ws)))
	out = binary.LittleEndian.AppendUint16(out, uint16(len(kindList)))
	for _, k := range kindList {
		out = append(out, byte(len(k)))
		out = append(out, k...)
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	for i, w := range ws {
		at := len(out)
		out = append(out, w.key[:]...)
		out = binary.LittleEndian.AppendUint16(out, uint16(kindNum[w.kind]))
		out = binary.LittleEndian.AppendUint16(out, 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(offs[i]))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(w.val)))
		crc := crc32.Update(crc32.ChecksumIEEE(out[at:]), crc32.IEEETable, w.val)
		out = binary.LittleEndian.AppendUint32(out, crc)
	}
	for _, i := range at {
		out = append(out, ws[i].val...)
	}
	return out, nil
}

// writePack writes ws as a new pack in dir, whole or not at all, and
// maps it.
func writePack(dir string, ws []write) (*pack, error) {
	data, err := encodePack(ws)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil, err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	// names sort by time of writing: the newest pack's value wins
	path := filepath.Join(dir, strconv.FormatInt(time.Now().UnixNano(), 10)+"-"+strconv.Itoa(os.Getpid())+".pack")
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	p := openPack(path)
	if p == nil {
		return nil, errBadPack
	}
	return p, nil
}

// openPacks maps the packs of dir, newest first, skipping any that fail
// their checks.
func openPacks(dir string) []*pack {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".pack") && de.Type().IsRegular() {
			names = append(names, de.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var ps []*pack
	for _, n := range names {
		if p := openPack(filepath.Join(dir, n)); p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

func openPack(path string) *pack {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < headerFixed+4 || st.Size() > maxPackSize {
		return nil
	}
	// The header is read, not looked at in the mapping: a file that is
	// not a pack of this version (an older one's) is not mapped at all,
	// and touching a page of a large pack's mapping made the kernel map
	// megabytes of it (large folios: 14 MB of RSS for 133 MB of pack).
	size := int(st.Size())
	head := make([]byte, min(size, 512))
	h, err := readHeader(f, head, size)
	if err != nil && errors.Is(err, errShort) {
		head = make([]byte, min(size, maxHeader))
		h, err = readHeader(f, head, size)
	}
	if err != nil {
		return nil
	}
	data, err := mapFile(f, size)
	if err != nil {
		return nil
	}
	end := h.index + h.count*entrySize
	return &pack{path: path, data: data, kinds: h.kinds, index: data[h.index:end], vals: end}
}

func readHeader(f *os.File, head []byte, size int) (header, error) {
	if _, err := f.ReadAt(head, 0); err != nil {
		return header{}, err
	}
	return parseHeader(head, size)
}

// lookup returns the value of kind and key in the first of packs that
// holds it whole.
func lookup(packs []*pack, kind string, key *Key) ([]byte, *pack, bool) {
	for _, p := range packs {
		if v, ok := p.get(kind, key); ok {
			return v, p, true
		}
	}
	return nil, nil, false
}

// liveValues is what a merging write carries over from old packs beside
// the new values: the values whose checksums hold and which neither new
// nor a newer pack has, newest pack first, up to limit bytes in all.
func liveValues(old []*pack, new []write, limit int64) []write {
	fresh := make(map[memKey]bool, len(new))
	var size int64
	for _, w := range new {
		fresh[memKey{w.kind, w.key}] = true
		size += int64(len(w.val))
	}
	var out []write
	for pi, p := range old {
		// in the order the values lie, which is the order they were
		// written in: what one run set stays together (encodePack)
		byPlace := make([]int, p.count())
		for i := range byPlace {
			byPlace[i] = i
		}
		sort.Slice(byPlace, func(a, b int) bool {
			return binary.LittleEndian.Uint32(p.entry(byPlace[a])[36:]) < binary.LittleEndian.Uint32(p.entry(byPlace[b])[36:])
		})
		for _, i := range byPlace {
			e := p.entry(i)
			k := int(binary.LittleEndian.Uint16(e[32:]))
			if k >= len(p.kinds) {
				continue
			}
			var mk memKey
			mk.kind = p.kinds[k]
			copy(mk.key[:], e[:32])
			if fresh[mk] {
				continue
			}
			if _, _, ok := lookup(old[:pi], mk.kind, &mk.key); ok {
				continue // a newer pack's copy was carried
			}
			v, ok := p.value(i)
			if !ok || size+int64(len(v)) > limit {
				continue
			}
			size += int64(len(v))
			out = append(out, write{mk.kind, mk.key, v})
		}
	}
	return out
}
