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
//	magic            8 bytes
//	count            uint32
//	count entries:   kind length (uint8), kind, key (32 bytes),
//	                 offset (uint64), length (uint32), CRC-32C (uint32)
//	                 of the value
//	CRC-32C          uint32 of all the above
//	values
//
// all little-endian. Opening a pack checks the header and every entry's
// bounds (touching only the index's pages of the mapping); a value's own
// checksum is checked when it is read. Packs are never modified: written
// whole under a temporary name and renamed, deleted whole.
var packMagic = []byte("ordpack\x01")

const packDir = "packs"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var errBadPack = errors.New("filecache: bad pack")

type pack struct {
	path string
	data []byte // mapped read-only, for the life of the process

	once sync.Once // a hit refreshes the modification time, once a run
}

// ref is where a value lies in a pack.
type ref struct {
	p      *pack
	off, n int
	crc    uint32
}

// value returns the bytes of r if their checksum holds.
func (r ref) value() ([]byte, bool) {
	v := r.p.data[r.off : r.off+r.n]
	return v, crc32.Checksum(v, castagnoli) == r.crc
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

// kinds interns the kinds of values read from pack indexes: a handful of
// words, one string each rather than one per value.
var kinds = &internTable{m: map[string]string{}}

type internTable struct {
	mu sync.Mutex
	m  map[string]string
}

func (t *internTable) intern(b []byte) string {
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

// entry is one value of a pack's index.
type entry struct {
	kind string
	key  Key
	ref  ref
}

// parseIndex checks data as a pack and returns its entries.
func parseIndex(p *pack) ([]entry, error) {
	d := p.data
	if len(d) < 12 || !bytes.Equal(d[:8], packMagic) {
		return nil, errBadPack
	}
	count := int(binary.LittleEndian.Uint32(d[8:12]))
	if count > len(d)/48 {
		return nil, errBadPack
	}
	es := make([]entry, 0, count)
	at := 12
	for range count {
		if at+1 > len(d) {
			return nil, errBadPack
		}
		kl := int(d[at])
		at++
		if at+kl+32+16 > len(d) {
			return nil, errBadPack
		}
		var e entry
		e.kind = kinds.intern(d[at : at+kl])
		at += kl
		copy(e.key[:], d[at:at+32])
		at += 32
		off := binary.LittleEndian.Uint64(d[at:])
		n := binary.LittleEndian.Uint32(d[at+8:])
		e.ref = ref{p: p, n: int(n), crc: binary.LittleEndian.Uint32(d[at+12:])}
		at += 16
		if off > uint64(len(d)) || uint64(n) > uint64(len(d))-off {
			return nil, errBadPack
		}
		e.ref.off = int(off)
		es = append(es, e)
	}
	if at+4 > len(d) || crc32.Checksum(d[:at], castagnoli) != binary.LittleEndian.Uint32(d[at:]) {
		return nil, errBadPack
	}
	for _, e := range es {
		if e.ref.off < at+4 {
			return nil, errBadPack
		}
	}
	return es, nil
}

// encodePack lays ws out as a pack.
func encodePack(ws []write) []byte {
	head := 12
	total := 0
	for _, w := range ws {
		head += 1 + len(w.kind) + 32 + 16
		total += len(w.val)
	}
	out := make([]byte, 0, head+4+total)
	out = append(out, packMagic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(ws)))
	off := head + 4
	for _, w := range ws {
		out = append(out, byte(len(w.kind)))
		out = append(out, w.kind...)
		out = append(out, w.key[:]...)
		out = binary.LittleEndian.AppendUint64(out, uint64(off))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(w.val)))
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(w.val, castagnoli))
		off += len(w.val)
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	for _, w := range ws {
		out = append(out, w.val...)
	}
	return out
}

// writePack writes ws as a new pack in dir, whole or not at all, and
// maps it.
func writePack(dir string, ws []write) (*pack, error) {
	for i := range ws {
		if len(ws[i].kind) > 255 {
			return nil, errBadPack
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil, err
	}
	_, err = tmp.Write(encodePack(ws))
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
	if err != nil || !st.Mode().IsRegular() || st.Size() < 16 || st.Size() > 1<<31 {
		return nil
	}
	data, err := mapFile(f, int(st.Size()))
	if err != nil {
		return nil
	}
	p := &pack{path: path, data: data}
	if _, err := parseIndex(p); err != nil {
		unmapFile(data)
		return nil
	}
	return p
}

// indexPacks says where each value of packs lies; the first pack that
// holds a key wins.
func indexPacks(packs []*pack) map[memKey]ref {
	n := 0
	for _, p := range packs {
		if len(p.data) >= 12 && bytes.Equal(p.data[:8], packMagic) {
			n += min(int(binary.LittleEndian.Uint32(p.data[8:12])), len(p.data)/48)
		}
	}
	// sized once from the headers' counts: grown from empty, the map of a
	// few hundred thousand values allocated twice what it holds
	idx := make(map[memKey]ref, n)
	for _, p := range packs {
		es, _ := parseIndex(p)
		for _, e := range es {
			k := memKey{e.kind, e.key}
			if _, ok := idx[k]; !ok {
				idx[k] = e.ref
			}
		}
	}
	return idx
}

// liveValues is what a merging write carries over from old packs beside
// the new values: the values whose checksums hold and which new does not
// have, newest pack first, up to limit bytes in all.
func liveValues(old []*pack, new []write, limit int64) []write {
	seen := map[memKey]bool{}
	var size int64
	for _, w := range new {
		seen[memKey{w.kind, w.key}] = true
		size += int64(len(w.val))
	}
	var out []write
	for _, p := range old {
		es, _ := parseIndex(p)
		for _, e := range es {
			k := memKey{e.kind, e.key}
			if seen[k] {
				continue
			}
			v, ok := e.ref.value()
			if !ok || size+int64(len(v)) > limit {
				continue
			}
			seen[k] = true
			size += int64(len(v))
			out = append(out, write{e.kind, e.key, v})
		}
	}
	return out
}
