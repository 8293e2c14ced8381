package source

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unicode/utf8"
)

// Columns in each encoding for a line mixing 1-, 2-, 3- and 4-byte
// characters: "aé€😀b".
func TestPositionEncodings(t *testing.T) {
	f := NewFile("file:///x", "", []byte("first\naé€😀b\n"))
	line := 1
	start := f.LineStart(line)
	for _, tc := range []struct {
		bytes              int // byte offset within the line
		utf8, utf16, utf32 int
	}{
		{0, 0, 0, 0},   // a
		{1, 1, 1, 1},   // é (2 bytes)
		{3, 3, 2, 2},   // € (3 bytes)
		{6, 6, 3, 3},   // 😀 (4 bytes, 2 UTF-16 units)
		{10, 10, 5, 4}, // b
		{11, 11, 6, 5}, // end of line
	} {
		for _, e := range []struct {
			enc  Encoding
			want int
		}{{UTF8, tc.utf8}, {UTF16, tc.utf16}, {UTF32, tc.utf32}} {
			p := f.Position(start+tc.bytes, e.enc)
			if p.Line != line || p.Col != e.want {
				t.Errorf("Position(%d, enc %d) = %+v, want %d:%d", tc.bytes, e.enc, p, line, e.want)
			}
			if off := f.Offset(Position{Line: line, Col: e.want}, e.enc); off != start+tc.bytes {
				t.Errorf("Offset(%d:%d, enc %d) = %d, want %d", line, e.want, e.enc, off, start+tc.bytes)
			}
		}
	}
}

// Clients may send positions past the end of a line or of the file; they
// clamp instead of landing on the next line.
func TestOffsetClamps(t *testing.T) {
	f := NewFile("u", "", []byte("ab\ncd"))
	for _, tc := range []struct {
		p    Position
		want int
	}{
		{Position{0, 99}, 2},
		{Position{1, 99}, 5},
		{Position{7, 0}, 5},
		{Position{-1, 0}, 0},
	} {
		if got := f.Offset(tc.p, UTF16); got != tc.want {
			t.Errorf("Offset(%+v) = %d, want %d", tc.p, got, tc.want)
		}
	}
	if p := f.Position(99, UTF16); p != (Position{1, 2}) {
		t.Errorf("Position past the end = %+v", p)
	}
}

// Invalid UTF-8 counts one unit per bad byte, so columns stay monotonic
// and round-trip.
func TestInvalidUTF8(t *testing.T) {
	text := []byte("x\xff\xfey")
	if utf8.Valid(text) {
		t.Fatal("test text should be invalid")
	}
	f := NewFile("u", "", text)
	for off := 0; off <= len(text); off++ {
		p := f.Position(off, UTF16)
		if p.Col != off {
			t.Errorf("Position(%d) col %d", off, p.Col)
		}
		if back := f.Offset(p, UTF16); back != off {
			t.Errorf("round trip of %d gave %d", off, back)
		}
	}
}

func TestLine1Col1(t *testing.T) {
	f := NewFile("u", "", []byte("a\n  bc"))
	if l, c := f.Line1Col1(4); l != 2 || c != 3 {
		t.Errorf("Line1Col1 = %d:%d, want 2:3", l, c)
	}
}

func TestURIs(t *testing.T) {
	p := "/tmp/a dir/ünï.pp"
	u := PathToURI(p)
	if u != "file:///tmp/a%20dir/%C3%BCn%C3%AF.pp" {
		t.Errorf("PathToURI = %q", u)
	}
	if back := URIToPath(u); back != p {
		t.Errorf("URIToPath = %q", back)
	}
	if URIToPath("untitled:Untitled-1") != "" {
		t.Error("untitled: URIs have no path")
	}
}

// Open documents win over the disk; the disk is re-read when it changes.
func TestWorkspaceOverlayAndDisk(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.pp")
	if err := os.WriteFile(p, []byte("disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := NewWorkspace(dir)
	if f := ws.Lookup(p); f == nil || string(f.Text) != "disk" {
		t.Fatalf("Lookup = %v", f)
	}
	ws.SetOverlay(NewFile(PathToURI(p), p, []byte("editor")))
	if f := ws.Lookup(p); string(f.Text) != "editor" {
		t.Errorf("overlay not preferred: %q", f.Text)
	}
	ws.DropOverlay(PathToURI(p))
	if err := os.WriteFile(p, []byte("disk, changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := ws.Lookup(p); string(f.Text) != "disk, changed" {
		t.Errorf("changed disk file not re-read: %q", f.Text)
	}
	if ws.Lookup(filepath.Join(dir, "missing.pp")) != nil || ws.Lookup(dir) != nil {
		t.Error("missing files and directories must look up as nil")
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "x.pp"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := ws.Walk(func(string) bool { return true })
	if len(got) != 1 || got[0] != p {
		t.Errorf("Walk = %v, want only %s (VCS folders skipped)", got, p)
	}
}

// A FIFO (or a device) named by an include must not block the analysis.
func TestLookupSkipsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.pp")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ws := NewWorkspace(dir)
	if f := ws.Lookup(fifo); f != nil {
		t.Error("a FIFO was read")
	}
	if f := ws.Lookup("/dev/zero"); f != nil {
		t.Error("/dev/zero was read")
	}
	if got := ws.Walk(func(string) bool { return true }); len(got) != 0 {
		t.Errorf("Walk listed special files: %v", got)
	}
}

// A link to a file is a file of the workspace at the link's path (the
// tools read through it); a link to a folder is not walked (a link to an
// ancestor would never end), nor is a dangling one listed.
func TestWalkListsLinksToFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "common"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "common", "promises.cf"), []byte("bundle agent main {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"promises.cf": "common/promises.cf", "common/loop": "..", "gone.cf": "nowhere.cf"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	ws := NewWorkspace(dir)
	got := ws.Walk(func(string) bool { return true })
	want := []string{filepath.Join(dir, "common", "promises.cf"), filepath.Join(dir, "promises.cf")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Walk = %v, want %v", got, want)
	}
	if f := ws.Lookup(filepath.Join(dir, "promises.cf")); f == nil || string(f.Text) != "bundle agent main {}\n" {
		t.Errorf("the link was not read through: %v", f)
	}
}

func TestCursorMatchesPosition(t *testing.T) {
	text := []byte("a😀b\n\xffé\r\nxyz\n\nwq😀😀\n")
	f := NewFile("file:///x", "", text)
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		c := f.Cursor(enc)
		for off := 0; off <= len(text)+1; off++ {
			if got, want := c.Position(off), f.Position(off, enc); got != want {
				t.Fatalf("enc %d: Cursor.Position(%d) = %v, want %v", enc, off, got, want)
			}
		}
		// backwards starts over
		for _, off := range []int{7, 2, 12, 0, len(text)} {
			if got, want := c.Position(off), f.Position(off, enc); got != want {
				t.Fatalf("enc %d: Cursor.Position(%d) after a jump = %v, want %v", enc, off, got, want)
			}
		}
	}
}
