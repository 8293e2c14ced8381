package filecache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func key(s string) Key { return sha256.Sum256([]byte(s)) }

// reopen is the cache the next process would have over dir.
func reopen(t *testing.T, dir string) *Cache {
	c := New(1 << 20)
	c.SetDir(dir)
	t.Cleanup(c.Flush)
	return c
}

func TestDiskRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	c.Set("k", key("a"), []byte("value a"))
	c.Set("k", key("b"), nil)
	c.Flush()
	n := reopen(t, dir)
	if v, ok := n.Get("k", key("a")); !ok || string(v) != "value a" {
		t.Fatalf("a: %q %v", v, ok)
	}
	if v, ok := n.Get("k", key("b")); !ok || len(v) != 0 {
		t.Fatalf("b: %q %v", v, ok)
	}
	if _, ok := n.Get("k", key("c")); ok {
		t.Fatal("c was never set")
	}
	if _, ok := n.Get("other", key("a")); ok {
		t.Fatal("a kind is a namespace of its own")
	}
}

// packFiles lists the packs of dir.
func packFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, packDir, "*.pack"))
	return m
}

// TestOnePackPerRun: however many values a run sets, they reach the disk
// as one file.
func TestOnePackPerRun(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	for i := range 500 {
		c.Set("k", key(fmt.Sprint(i)), []byte(fmt.Sprint("value ", i)))
	}
	c.Flush()
	if ps := packFiles(t, dir); len(ps) != 1 {
		t.Fatalf("%d packs after one run: %v", len(ps), ps)
	}
	n := reopen(t, dir)
	for i := range 500 {
		if v, ok := n.Get("k", key(fmt.Sprint(i))); !ok || string(v) != fmt.Sprint("value ", i) {
			t.Fatalf("%d: %q %v", i, v, ok)
		}
	}
	n.Flush()
	if ps := packFiles(t, dir); len(ps) != 1 {
		t.Fatalf("a run with only hits wrote a pack: %v", ps)
	}
}

// TestWrittenWhenQuiet: a process that never calls Flush (the server)
// writes its pack once no value has come for writeDelay.
func TestWrittenWhenQuiet(t *testing.T) {
	defer func(d time.Duration) { writeDelay = d }(writeDelay)
	writeDelay = 10 * time.Millisecond
	dir := t.TempDir()
	c := reopen(t, dir)
	c.Set("k", key("a"), []byte("a"))
	c.Set("k", key("b"), []byte("b"))
	for range 500 {
		if len(packFiles(t, dir)) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ps := packFiles(t, dir); len(ps) != 1 {
		t.Fatalf("packs: %v", ps)
	}
	if v, ok := reopen(t, dir).Get("k", key("b")); !ok || string(v) != "b" {
		t.Fatalf("b: %q %v", v, ok)
	}
}

// TestBadPacks: whatever a pack's file holds, a wrong value is never
// returned: truncated, a flipped bit anywhere, bytes appended, an empty
// file, a directory, another program's file; a good pack beside a bad one
// still answers.
func TestBadPacks(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	vals := map[string]string{"a": "the value of a, long enough to have a middle", "b": "the value of b"}
	for k, v := range vals {
		c.Set("k", key(k), []byte(v))
	}
	c.Flush()
	path := packFiles(t, dir)[0]
	good, _ := os.ReadFile(path)
	check := func(what string, data []byte) {
		t.Helper()
		os.WriteFile(path, data, 0o644)
		n := reopen(t, dir)
		for k, want := range vals {
			if v, ok := n.Get("k", key(k)); ok && string(v) != want {
				t.Errorf("%s: %s read %q", what, k, v)
			}
		}
	}
	for n := 0; n < len(good); n++ {
		check(fmt.Sprintf("truncated to %d", n), good[:n])
	}
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := bytes.Clone(good)
			b[i] ^= 1 << bit
			check(fmt.Sprintf("bit %d of byte %d", bit, i), b)
		}
	}
	check("appended", append(bytes.Clone(good), 0))
	check("empty", nil)
	check("not ours", []byte("#!/bin/sh\necho a shell script named like a pack\n"))
	os.Remove(path)
	os.Mkdir(path, 0o755)
	if _, ok := reopen(t, dir).Get("k", key("a")); ok {
		t.Error("a directory is a pack")
	}
	os.Remove(path)

	// a good pack beside a damaged one
	os.WriteFile(path, good, 0o644)
	other := reopen(t, dir)
	other.Set("k", key("c"), []byte("c"))
	other.Flush()
	b := bytes.Clone(good)
	b[len(b)-1] ^= 1 // the last value's last byte: its checksum fails
	os.WriteFile(path, b, 0o644)
	n := reopen(t, dir)
	if v, ok := n.Get("k", key("c")); !ok || string(v) != "c" {
		t.Errorf("c beside a damaged pack: %q %v", v, ok)
	}
	hits := 0
	for k, want := range vals {
		if v, ok := n.Get("k", key(k)); ok {
			hits++
			if string(v) != want {
				t.Errorf("%s read %q", k, v)
			}
		}
	}
	if hits != 1 {
		t.Errorf("%d of a and b read from a pack with one value damaged, want 1", hits)
	}
}

// TestMerge: runs that each write a pack leave at most maxPacks of them;
// the write that would pass it merges them, and every value is still
// there.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 * maxPacks {
		c := reopen(t, dir)
		c.Set("k", key(fmt.Sprint(i)), []byte(fmt.Sprint(i)))
		c.Flush()
		if n := len(packFiles(t, dir)); n > maxPacks {
			t.Fatalf("run %d left %d packs", i, n)
		}
	}
	n := reopen(t, dir)
	for i := range 3 * maxPacks {
		if v, ok := n.Get("k", key(fmt.Sprint(i))); !ok || string(v) != fmt.Sprint(i) {
			t.Fatalf("%d: %q %v", i, v, ok)
		}
	}
}

// TestMergeKeepsBigPack: too many packs merge the small new ones, not a
// big old one (rewritten only once the small ones add up to half of it).
func TestMergeKeepsBigPack(t *testing.T) {
	dir := t.TempDir()
	big := map[string]string{}
	for i := range 100 {
		big[fmt.Sprint("big ", i)] = string(make([]byte, 1000))
	}
	writeRun(t, dir, big)
	bigPack := packFiles(t, dir)[0]
	for i := range 3 * maxPacks {
		writeRun(t, dir, map[string]string{fmt.Sprint(i): fmt.Sprint(i)})
		if n := len(packFiles(t, dir)); n > maxPacks {
			t.Fatalf("run %d left %d packs", i, n)
		}
	}
	if _, err := os.Stat(bigPack); err != nil {
		t.Error("the big pack was merged to carry a few bytes")
	}
	n := reopen(t, dir)
	for k := range big {
		if _, ok := n.Get("k", key(k)); !ok {
			t.Fatalf("%s is missing", k)
		}
	}
	for i := range 3 * maxPacks {
		if v, ok := n.Get("k", key(fmt.Sprint(i))); !ok || string(v) != fmt.Sprint(i) {
			t.Fatalf("%d: %q %v", i, v, ok)
		}
	}
}

// TestMergeBudget: a merge carries over the newest values only, up to 3/4
// of the budget.
func TestMergeBudget(t *testing.T) {
	dir := t.TempDir()
	for i := range maxPacks + 1 {
		c := New(1 << 20)
		c.SetBudget(4000)
		c.SetDir(dir)
		c.Set("k", key(fmt.Sprint(i)), make([]byte, 1000))
		c.Flush()
	}
	n := reopen(t, dir)
	var kept []int
	for i := range maxPacks + 1 {
		if _, ok := n.Get("k", key(fmt.Sprint(i))); ok {
			kept = append(kept, i)
		}
	}
	if fmt.Sprint(kept) != "[6 7 8]" {
		t.Errorf("kept %v, want [6 7 8]", kept)
	}
}

// TestTrim: over budget, the packs used least recently go first, down to
// 3/4 of the budget; a hit counts as a use (once an hour).
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		c := reopen(t, dir)
		c.Set("k", key(fmt.Sprint(i)), make([]byte, 1000))
		c.Flush()
	}
	ps := packFiles(t, dir) // names sort by time of writing
	if len(ps) != 5 {
		t.Fatalf("%d packs", len(ps))
	}
	old := time.Now().Add(-3 * time.Hour)
	for i, p := range ps {
		mt := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, mt, mt)
	}
	// 0 is the oldest, but a hit makes it the newest
	c := reopen(t, dir)
	if _, ok := c.Get("k", key("0")); !ok {
		t.Fatal("0 is missing")
	}
	for range 500 {
		if st, _ := os.Stat(ps[0]); st.ModTime().After(old.Add(time.Hour)) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.WriteFile(filepath.Join(dir, packDir, ".tmp-crashed"), nil, 0o644)
	os.Chtimes(filepath.Join(dir, packDir, ".tmp-crashed"), old, old)
	Trim(dir, 4*1100) // packs are 1000 + 65 bytes: 5 over 4,400, keep 3
	var kept []int
	for i, p := range ps {
		if _, err := os.Stat(p); err == nil {
			kept = append(kept, i)
		}
	}
	if fmt.Sprint(kept) != "[0 3 4]" {
		t.Errorf("kept %v, want [0 3 4]", kept)
	}
	if _, err := os.Stat(filepath.Join(dir, packDir, ".tmp-crashed")); err == nil {
		t.Error("an old temporary file was kept")
	}
}

func TestMemoryBudget(t *testing.T) {
	c := New(100)
	for i := range 20 {
		c.Set("k", key(fmt.Sprint(i)), make([]byte, 10))
	}
	if c.memBytes > 100 {
		t.Fatalf("%d bytes in memory, budget 100", c.memBytes)
	}
	if _, ok := c.Get("k", key("19")); !ok {
		t.Fatal("the newest value is gone")
	}
	if _, ok := c.Get("k", key("0")); ok {
		t.Fatal("the oldest value is still there")
	}
}

func TestDir(t *testing.T) {
	t.Setenv("ORDERING_CACHE_DIR", "/x/y")
	t.Setenv("ORDERING_CACHE", "")
	if d := Dir(); d != "/x/y" {
		t.Errorf("Dir() = %q with ORDERING_CACHE_DIR", d)
	}
	t.Setenv("ORDERING_CACHE", "off")
	if d := Dir(); d != "" {
		t.Errorf("Dir() = %q with ORDERING_CACHE=off", d)
	}
}

// TestDropPages: values read before and after the packs' pages are given
// back read the same (a pack is read again from its file).
func TestDropPages(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	val := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprint(i, ";")), 2000) }
	for i := range 64 {
		c.Set("k", key(fmt.Sprint(i)), val(i))
	}
	c.Flush()
	n := reopen(t, dir)
	if len(n.packs) != 1 || len(n.packs[0].data) < 64*4000 {
		t.Fatalf("%d packs", len(n.packs))
	}
	before, _ := n.Get("k", key("7"))
	n.DropPages()
	if !bytes.Equal(before, val(7)) {
		t.Fatalf("a value read before: %.20q...", before)
	}
	for i := range 64 {
		if v, ok := n.Get("k", key(fmt.Sprint(i))); !ok || !bytes.Equal(v, val(i)) {
			t.Fatalf("%d: %v %.20q...", i, ok, v)
		}
	}
}

// TestMergeKeepsRunsTogether: the values one run set lie side by side in
// whatever pack holds them after merges, in the order they were set, so
// that the next run reads few pages of a big pack (in key order each
// value had a page of its own).
func TestMergeKeepsRunsTogether(t *testing.T) {
	dir := t.TempDir()
	const runs, each = 3 * maxPacks, 40
	for r := range runs {
		c := reopen(t, dir)
		for i := range each {
			c.Set("k", key(fmt.Sprint(r, "/", i)), []byte(fmt.Sprintf("run %d value %d;", r, i)))
		}
		c.Flush()
	}
	c := reopen(t, dir)
	if len(c.packs) >= runs {
		t.Fatalf("%d packs: nothing was merged", len(c.packs))
	}
	for r := range runs {
		var at []uint32
		var in *pack
		for i := range each {
			k := key(fmt.Sprint(r, "/", i))
			for _, p := range c.packs {
				if j := p.find("k", &k); j >= 0 {
					if in != nil && in != p {
						t.Fatalf("run %d is split between packs", r)
					}
					in = p
					at = append(at, binary.LittleEndian.Uint32(p.entry(j)[36:]))
					break
				}
			}
		}
		if len(at) != each {
			t.Fatalf("run %d: %d values found", r, len(at))
		}
		for i := 1; i < each; i++ {
			want := at[i-1] + uint32(len(fmt.Sprintf("run %d value %d;", r, i-1)))
			if at[i] != want {
				t.Fatalf("run %d: value %d at %d, want %d (just after value %d)", r, i, at[i], want, i-1)
			}
		}
	}
}
