package filecache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// writeRun is one run of the program over dir that sets vals (kind "k").
func writeRun(t testing.TB, dir string, vals map[string]string) {
	t.Helper()
	c := New(1 << 20)
	c.SetDir(dir)
	for k, v := range vals {
		c.Set("k", key(k), []byte(v))
	}
	c.Flush()
}

// TestNewestPackWins: a key is looked up in every pack, newest first; a
// key an older pack alone holds is found there; a newest copy that fails
// its checksum gives way to an older intact one (a key names one value,
// so any intact copy is the value).
func TestNewestPackWins(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, map[string]string{"a": "a from run 1", "b": "b from run 1", "c": "c"})
	time.Sleep(time.Millisecond) // names sort by time of writing
	writeRun(t, dir, map[string]string{"a": "a from run 2", "d": "d"})
	time.Sleep(time.Millisecond)
	writeRun(t, dir, map[string]string{"a": "a from run 3", "b": "b from run 3"})
	if n := len(packFiles(t, dir)); n != 3 {
		t.Fatalf("%d packs", n)
	}
	c := reopen(t, dir)
	want := map[string]string{"a": "a from run 3", "b": "b from run 3", "c": "c", "d": "d"}
	for k, w := range want {
		if v, ok := c.Get("k", key(k)); !ok || string(v) != w {
			t.Errorf("%s: %q %v, want %q", k, v, ok, w)
		}
	}
	if _, ok := c.Get("k", key("e")); ok {
		t.Error("e was never set")
	}

	// damage the value of a in the newest pack
	ps := packFiles(t, dir)
	newest := ps[len(ps)-1]
	data, _ := os.ReadFile(newest)
	i := bytes.Index(data, []byte("a from run 3"))
	data[i] ^= 0x20
	os.WriteFile(newest, data, 0o644)
	if v, ok := reopen(t, dir).Get("k", key("a")); !ok || string(v) != "a from run 2" {
		t.Errorf("a with the newest copy damaged: %q %v, want the copy of run 2", v, ok)
	}
}

// TestDamagedEntry: a change to any field of an index entry makes its
// value a miss, not another value, and leaves the other entries alone.
func TestDamagedEntry(t *testing.T) {
	dir := t.TempDir()
	vals := map[string]string{}
	for i := range 50 {
		vals[fmt.Sprint(i)] = fmt.Sprint("value ", i)
	}
	writeRun(t, dir, vals)
	path := packFiles(t, dir)[0]
	good, _ := os.ReadFile(path)
	p, err := packOf(path, good)
	if err != nil {
		t.Fatal(err)
	}
	fields := []struct {
		name string
		at   int
	}{{"key", 5}, {"kind", 32}, {"zero", 34}, {"offset", 36}, {"length", 40}, {"checksum", 44}}
	for _, f := range fields {
		for _, bit := range []int{0, 3, 7} {
			b := bytes.Clone(good)
			e := p.vals - p.count()*entrySize + 7*entrySize // the 8th entry
			var k Key
			copy(k[:], b[e:e+32])
			b[e+f.at] ^= 1 << bit
			os.WriteFile(path, b, 0o644)
			c := reopen(t, dir)
			for name, want := range vals {
				v, ok := c.Get("k", key(name))
				switch {
				case key(name) == k && ok:
					t.Errorf("%s, bit %d: the damaged entry read %q", f.name, bit, v)
				case key(name) != k && (!ok || string(v) != want):
					t.Errorf("%s, bit %d: %s read %q %v beside the damaged entry", f.name, bit, name, v, ok)
				}
			}
		}
	}
}

// TestTruncatedPack: a pack cut anywhere, or with bytes after its end,
// is not opened at all.
func TestTruncatedPack(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, map[string]string{"a": "the value of a", "b": "the value of b"})
	path := packFiles(t, dir)[0]
	good, _ := os.ReadFile(path)
	for _, n := range []int{0, 8, headerFixed + 4, len(good) / 2, len(good) - 1, len(good) + 1} {
		b := append(bytes.Clone(good), make([]byte, max(0, n-len(good)))...)[:n]
		os.WriteFile(path, b, 0o644)
		if p := openPack(path); p != nil {
			t.Errorf("%d bytes of %d opened", n, len(good))
		}
		if _, ok := reopen(t, dir).Get("k", key("a")); ok {
			t.Errorf("%d bytes of %d: a hit", n, len(good))
		}
	}
}

// encodeV1 lays ws out as version 1 wrote a pack: magic, count, entries
// of variable size (kind length, kind, key, offset, length, CRC of the
// value), CRC of all that, values.
func encodeV1(ws []write) []byte {
	head := 12
	for _, w := range ws {
		head += 1 + len(w.kind) + 32 + 16
	}
	out := append([]byte("ordpack\x01"), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[8:], uint32(len(ws)))
	off := head + 4
	for _, w := range ws {
		out = append(out, byte(len(w.kind)))
		out = append(out, w.kind...)
		out = append(out, w.key[:]...)
		out = binary.LittleEndian.AppendUint64(out, uint64(off))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(w.val)))
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(w.val, castagnoliV1))
		off += len(w.val)
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoliV1))
	for _, w := range ws {
		out = append(out, w.val...)
	}
	return out
}

var castagnoliV1 = crc32.MakeTable(crc32.Castagnoli) // version 1's checksums

// TestVersion1Packs: a pack of version 1 (which this program never
// wrote: its keys hold another build's ID) is not opened; runs beside it
// write and read their own packs, it does not count towards merging,
// and trimming deletes it as the least recently used.
func TestVersion1Packs(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, packDir), 0o755)
	v1 := filepath.Join(dir, packDir, "1000-1.pack") // sorts before any pack written now
	os.WriteFile(v1, encodeV1([]write{{"k", key("old"), bytes.Repeat([]byte("o"), 1000)}}), 0o644)
	old := time.Now().Add(-3 * time.Hour)
	os.Chtimes(v1, old, old)
	if p := openPack(v1); p != nil {
		t.Fatal("a version 1 pack was opened")
	}
	if _, ok := reopen(t, dir).Get("k", key("old")); ok {
		t.Fatal("a value of a version 1 pack was read")
	}
	for i := range maxPacks {
		writeRun(t, dir, map[string]string{fmt.Sprint(i): "new"})
	}
	c := reopen(t, dir)
	for i := range maxPacks {
		if v, ok := c.Get("k", key(fmt.Sprint(i))); !ok || string(v) != "new" {
			t.Errorf("%d beside a version 1 pack: %q %v", i, v, ok)
		}
	}
	if _, err := os.Stat(v1); err != nil {
		t.Fatal("merging deleted a pack it did not read")
	}
	Trim(dir, 1000) // over budget: the oldest goes first
	if _, err := os.Stat(v1); err == nil {
		t.Error("trimming kept the version 1 pack")
	}
}

// TestManyKinds: kinds are namespaces, in the same pack; a header longer
// than the first read of it (long kinds) is read whole.
func TestManyKinds(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	kinds := []string{"puppet", "salt", "x"}
	for i := range 10 {
		kinds = append(kinds, fmt.Sprint(i, strings.Repeat("long kind ", 20)))
	}
	for _, kind := range kinds {
		for i := range 20 {
			c.Set(kind, key(fmt.Sprint(i)), []byte(kind+fmt.Sprint(i)))
		}
	}
	c.Flush()
	n := reopen(t, dir)
	for _, kind := range kinds {
		for i := range 20 {
			if v, ok := n.Get(kind, key(fmt.Sprint(i))); !ok || string(v) != kind+fmt.Sprint(i) {
				t.Fatalf("%s %d: %q %v", kind, i, v, ok)
			}
		}
	}
	if _, ok := n.Get("y", key("1")); ok {
		t.Fatal("a kind no pack holds answered")
	}
}

// FuzzOpenPack: whatever bytes a pack's file holds, opening it and
// looking anything up in it neither panics nor reads outside it.
func FuzzOpenPack(f *testing.F) {
	good, _ := encodePack([]write{{"k", key("a"), []byte("x")}, {"k", key("b"), []byte("yy")}, {"j", key("a"), nil}})
	f.Add(good)
	f.Add(encodeV1([]write{{"k", key("a"), []byte("x")}}))
	f.Add([]byte{})
	f.Add([]byte("ordpack\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := packOf("", data)
		// as openPack reads it: a first part, then the whole if need be
		h, herr := parseHeader(data[:min(len(data), 512)], len(data))
		if errors.Is(herr, errShort) {
			h, herr = parseHeader(data, len(data))
		}
		if (err == nil) != (herr == nil) || err == nil && (h.index+h.count*entrySize != p.vals || len(h.kinds) != len(p.kinds)) {
			t.Fatalf("read in two parts: %+v %v; whole: %v", h, herr, err)
		}
		if err != nil {
			return
		}
		for _, k := range []string{"k", "j", "z"} {
			for _, name := range []string{"a", "b", "c"} {
				kk := key(name)
				if v, ok := p.get(k, &kk); ok && !within(v, data) {
					t.Fatalf("%s %s: value outside the file", k, name)
				}
			}
		}
		for i := range p.count() {
			if v, ok := p.value(i); ok && !within(v, data) {
				t.Fatalf("entry %d: value outside the file", i)
			}
		}
		liveValues([]*pack{p}, nil, 1<<20)
	})
}

// within says whether v lies inside data.
func within(v, data []byte) bool {
	if len(v) == 0 {
		return true
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	return at >= lo && at+uintptr(len(v)) <= lo+uintptr(len(data))
}

// BenchmarkOpen: a run's start over a cache directory holding one pack
// of N values of 200 bytes: mapping the packs, one hit and one miss. It
// must not grow with N.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 500_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			ws := make([]write, n)
			for i := range ws {
				ws[i] = write{"puppet", key(fmt.Sprint(i)), bytes.Repeat([]byte{byte(i)}, 200)}
			}
			if _, err := writePack(filepath.Join(dir, packDir), ws); err != nil {
				b.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "trimmed"), nil, 0o644) // no trimming in the loop
			hit, miss := key(fmt.Sprint(n/2)), key("none")
			b.ResetTimer()
			for range b.N {
				c := New(1 << 20)
				c.SetDir(dir)
				if _, ok := c.Get("puppet", hit); !ok {
					b.Fatal("miss")
				}
				if _, ok := c.Get("puppet", miss); ok {
					b.Fatal("hit")
				}
				c.Flush()
				for _, p := range c.packs {
					unmapFile(p.data)
				}
			}
		})
	}
}
