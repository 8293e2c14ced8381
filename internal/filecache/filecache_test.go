package filecache

import (
	"bytes"
	"crypto/sha256"
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

// TestBadEntries: whatever an entry's file holds, a wrong value is never
// returned: truncated, a flipped bit anywhere, another key's entry under
// this key's name, an empty file, a directory.
func TestBadEntries(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	val := []byte("the value of a, long enough to have a middle")
	c.Set("k", key("a"), val)
	c.Set("k", key("b"), []byte("the value of b"))
	c.Flush()
	pa, pb := entryPath(dir, "k", key("a")), entryPath(dir, "k", key("b"))
	good, _ := os.ReadFile(pa)
	other, _ := os.ReadFile(pb)
	miss := func(what string, data []byte) {
		t.Helper()
		os.WriteFile(pa, data, 0o644)
		if v, ok := reopen(t, dir).Get("k", key("a")); ok {
			t.Errorf("%s: read %q", what, v)
		}
	}
	for n := 0; n < len(good); n++ {
		miss(fmt.Sprintf("truncated to %d", n), good[:n])
	}
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := bytes.Clone(good)
			b[i] ^= 1 << bit
			miss(fmt.Sprintf("bit %d of byte %d", bit, i), b)
		}
	}
	miss("b's entry", other)
	miss("appended", append(bytes.Clone(good), 0))
	os.Remove(pa)
	os.Mkdir(pa, 0o755)
	if _, ok := reopen(t, dir).Get("k", key("a")); ok {
		t.Error("a directory is an entry")
	}
	os.Remove(pa)
	os.WriteFile(pa, good, 0o644)
	if v, ok := reopen(t, dir).Get("k", key("a")); !ok || !bytes.Equal(v, val) {
		t.Errorf("the good entry again: %q %v", v, ok)
	}
}

func FuzzDecodeEntry(f *testing.F) {
	f.Add(encodeEntry(key("a"), []byte("x")))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, err := decodeEntry(data, key("a")); err == nil && !bytes.Equal(encodeEntry(key("a"), v), data) {
			t.Fatal("accepted bytes that are not the value's entry")
		}
	})
}

// TestTrim: over budget, the entries used least recently go first, down
// to 3/4 of the budget; a hit counts as a use (once an hour).
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	c := reopen(t, dir)
	for i := range 10 {
		c.Set("k", key(fmt.Sprint(i)), make([]byte, 1000))
	}
	c.Flush()
	old := time.Now().Add(-3 * time.Hour)
	for i := range 10 {
		mt := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(entryPath(dir, "k", key(fmt.Sprint(i))), mt, mt)
	}
	// 0 is the oldest, but a hit makes it the newest
	if _, ok := reopen(t, dir).Get("k", key("0")); !ok {
		t.Fatal("0 is missing")
	}
	os.WriteFile(filepath.Join(dir, "k", ".tmp-crashed"), nil, 0o644)
	os.Chtimes(filepath.Join(dir, "k", ".tmp-crashed"), old, old)
	Trim(dir, 8*1100) // entries are 1000 + 48 bytes: 10 over 8,800, keep 6
	var kept []int
	for i := range 10 {
		if _, err := os.Stat(entryPath(dir, "k", key(fmt.Sprint(i)))); err == nil {
			kept = append(kept, i)
		}
	}
	if fmt.Sprint(kept) != "[0 5 6 7 8 9]" {
		t.Errorf("kept %v, want [0 5 6 7 8 9]", kept)
	}
	if _, err := os.Stat(filepath.Join(dir, "k", ".tmp-crashed")); err == nil {
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
