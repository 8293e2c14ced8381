package puppet

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// checkCodec encodes the tree of every chunk of src that parses and
// decodes it twice: in place, where it must give the parsed tree, and in
// a copy of the text moved by some bytes, where it must give the tree
// the chunk reuse of an edit gives (the parsed tree shifted). Strings
// that were the source's memory must be the new text's memory.
func checkCodec(t *testing.T, src []byte) {
	t.Helper()
	toks := Lex(src)
	for _, r := range splitChunks(src, toks) {
		pos, end := toks[r.a].Pos, toks[r.b-1].End
		stmts, err := parseChunkGrammar(src, toks[r.a:r.b+1], &toks[r.b])
		if err != nil {
			continue
		}
		data := encodeChunk(nil, src, pos, end, stmts)
		got, derr := decodeChunk(data, src, pos, end)
		if derr != nil || !reflect.DeepEqual(got, stmts) {
			t.Fatalf("chunk at %d: decoded tree differs (%v):\n\tparsed  %.300s\n\tdecoded %.300s", pos, derr, dumpAll(stmts), dumpAll(got))
		}
		// the same text 7 bytes further on
		moved := append([]byte("\n\n\n\n\n\n\n"), src[pos:end]...)
		got, derr = decodeChunk(data, moved, 7, 7+end-pos)
		want := Chunk{Loc: Loc{pos, end}, Stmts: stmts}
		shiftChunk(&want, 7-pos)
		if derr != nil || !reflect.DeepEqual(got, want.Stmts) {
			t.Fatalf("chunk at %d moved: decoded tree differs (%v)", pos, derr)
		}
		was, now := varNames(stmts), varNames(got)
		for i := range was {
			if inside(was[i], src) != inside(now[i], moved) {
				t.Fatalf("chunk at %d: variable %q: in the source's memory %v, decoded %v", pos, was[i], inside(was[i], src), inside(now[i], moved))
			}
		}
		// every strict prefix is refused (a sample of them in big chunks)
		step := max(1, len(data)/256)
		for k := 0; k < len(data); k += step {
			if _, err := decodeChunk(data[:k], src, pos, end); err == nil {
				t.Fatalf("chunk at %d: a prefix of %d of %d bytes decodes", pos, k, len(data))
			}
		}
	}
}

func inside(s string, b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(b))
}

func varNames(ns []Node) []string {
	var out []string
	for _, s := range ns {
		Walk(s, func(n Node) bool {
			if v, ok := n.(*Var); ok {
				out = append(out, v.Name)
			}
			return true
		})
	}
	return out
}

func dumpAll(ns []Node) string {
	var b bytes.Buffer
	for _, n := range ns {
		b.WriteString(dump(n))
	}
	return b.String()
}

func TestCodecSeeds(t *testing.T) {
	for _, in := range seedInputs() {
		checkCodec(t, []byte(in))
	}
}

// TestCodecCorpus (opt-in: ORDERING_CORPUS=dir) round-trips every chunk
// of every manifest of the corpus.
func TestCodecCorpus(t *testing.T) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		t.Skip("set ORDERING_CORPUS")
	}
	files := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".pp" {
			src, _ := os.ReadFile(p)
			files++
			t.Run(p, func(t *testing.T) { checkCodec(t, src) })
		}
		return nil
	})
	t.Logf("%d files", files)
}

// FuzzDecodeChunk: bytes that are not an encoded chunk are refused,
// never a panic or a hang.
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range diffSeeds {
		src := []byte(s)
		toks := Lex(src)
		for _, r := range splitChunks(src, toks) {
			pos, end := toks[r.a].Pos, toks[r.b-1].End
			if stmts, err := parseChunkGrammar(src, toks[r.a:r.b+1], &toks[r.b]); err == nil {
				f.Add(encodeChunk(nil, src, pos, end, stmts), s)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, s string) {
		src := []byte(s)
		stmts, err := decodeChunk(data, src, 0, len(src))
		if err == nil {
			encodeChunk(nil, src, 0, len(src), stmts) // a decoded tree is a tree
		}
	})
}

// TestChunkCacheAcrossProcesses: a parser with a cache of its own over
// the directory another one filled (as the next run of the program)
// decodes every chunk and builds the trees a parse builds; with the
// directory's entries damaged it parses them again.
func TestChunkCacheAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	src := manifest10k()[:20000]
	fresh := (&Parser{NoCache: true}).Parse(src)
	good := 0 // chunks without a syntax error: those are kept
	for _, c := range fresh.Chunks {
		if c.Err == nil {
			good++
		}
	}
	if good < 10 || good == len(fresh.Chunks) {
		t.Fatalf("%d chunks, %d without error: the test wants both kinds", len(fresh.Chunks), good)
	}

	first := filecache.New(1 << 20)
	first.SetDir(dir)
	ps := &Parser{fc: first}
	if f := ps.Parse(src); !reflect.DeepEqual(f, fresh) {
		t.Fatal("the first parse differs from a parse without cache")
	}
	if ps.Parsed != len(fresh.Chunks) || ps.Decoded != 0 {
		t.Fatalf("first parse: %d parsed, %d decoded of %d chunks", ps.Parsed, ps.Decoded, len(fresh.Chunks))
	}
	first.Flush()

	next := filecache.New(1 << 20)
	next.SetDir(dir)
	ps = &Parser{fc: next}
	if f := ps.Parse(src); !reflect.DeepEqual(f.Stmts, fresh.Stmts) || !reflect.DeepEqual(f.Errors, fresh.Errors) {
		t.Fatal("the trees decoded from disk differ from parsed ones")
	}
	if ps.Decoded != good || next.DiskHits != good {
		t.Fatalf("next run: %d decoded (%d from disk) of %d chunks", ps.Decoded, next.DiskHits, len(fresh.Chunks))
	}

	// damage every file: flip a byte in every 64, index and values
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "trimmed" {
			b, _ := os.ReadFile(p)
			for i := 13; i < len(b); i += 64 {
				b[i] ^= 0x55
			}
			os.WriteFile(p, b, 0o644)
			n++
		}
		return nil
	})
	if n == 0 {
		t.Fatal("nothing was written")
	}
	damaged := filecache.New(1 << 20)
	damaged.SetDir(dir)
	ps = &Parser{fc: damaged}
	if f := ps.Parse(src); !reflect.DeepEqual(f.Stmts, fresh.Stmts) {
		t.Fatal("trees differ after the cache was damaged")
	}
	if ps.Decoded != 0 || ps.Parsed != len(fresh.Chunks) {
		t.Fatalf("damaged entries: %d decoded, %d parsed", ps.Decoded, ps.Parsed)
	}
	for _, c := range []*filecache.Cache{first, next, damaged} {
		c.Flush()
	}
}
