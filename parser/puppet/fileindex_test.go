package puppet

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// fileIndexInputs: a small file with what the validator refuses (names
// of data types, definitions nested where Puppet refuses them), a file
// past parallelMin (decoded on workers), and both with a syntax error.
func fileIndexInputs() map[string][]byte {
	small := `# comment before the first chunk
class integer { }
define app::thing($x = 1) {
  notify { "t-${title}": message => $x }
  class nested_in_define { }
}
class a {
  class b { }
  if $facts['os'] { class c { } }
}

notify { 'top': }   # between chunks
Notify['top'] -> Class['a']
include a
`
	big := string(manifest10k()[:3*parallelMin])
	big = big[:strings.LastIndex(big, "\nclass ")+1]
	big = small + big + "define unit { }\n"
	return map[string][]byte{
		"small":        []byte(small),
		"big":          []byte(big),
		"small-broken": []byte(small + "notify { 'x': message => }\n" + small),
		"big-broken":   []byte(big[:len(big)/2] + "\nclass oops {\n" + big[len(big)/2:]),
	}
}

// TestFileIndex: a parser whose cache knows where a file's chunks lie
// decodes them straight from the cache (no lexing, no chunk parsed) and
// gives the File a parse without any cache gives: statements, errors and
// chunks. A file with a syntax error has no index; with a chunk's tree
// gone from the cache, the file is cut and parsed as before.
func TestFileIndex(t *testing.T) {
	defer func(p int) { parallelMin = p }(parallelMin)
	parallelMin = 32 << 10 // "big" is decoded on workers
	for name, src := range fileIndexInputs() {
		t.Run(name, func(t *testing.T) {
			fresh := (&Parser{NoCache: true}).Parse(src)
			broken := anyChunkErr(fresh)
			if broken != strings.HasSuffix(name, "-broken") || len(fresh.Errors) == 0 {
				t.Fatalf("%d errors, a chunk with a syntax error: %v: not the input the test wants", len(fresh.Errors), broken)
			}
			c := filecache.New(64 << 20)
			first := &Parser{fc: c}
			sameFile(t, "first parse", first.Parse(src), fresh)
			locs := indexedChunks(c, src)
			if broken {
				if locs != nil {
					t.Fatalf("an index of %d chunks for a file with a syntax error", len(locs))
				}
				return
			}
			if len(locs) != len(fresh.Chunks) {
				t.Fatalf("index of %d chunks, the file has %d", len(locs), len(fresh.Chunks))
			}
			next := &Parser{fc: c}
			sameFile(t, "indexed parse", next.Parse(src), fresh)
			if next.Decoded != len(fresh.Chunks) || next.Parsed != 0 {
				t.Fatalf("indexed parse: %d decoded, %d parsed of %d chunks", next.Decoded, next.Parsed, len(fresh.Chunks))
			}

			// the index alone, without the chunks' trees
			only := filecache.New(64 << 20)
			data, _ := c.Get(fileIndexKind, fileIndexKey(src))
			only.Set(fileIndexKind, fileIndexKey(src), data)
			ps := &Parser{fc: only}
			sameFile(t, "index without trees", ps.Parse(src), fresh)
			// (a chunk repeated in the file is decoded once parsed)
			if ps.Parsed == 0 || ps.Parsed+ps.Decoded != len(fresh.Chunks) {
				t.Fatalf("index without trees: %d parsed, %d decoded of %d chunks", ps.Parsed, ps.Decoded, len(fresh.Chunks))
			}

			// an index that does not fit the text is no index
			if indexedChunks(c, src[:len(src)-1]) != nil {
				t.Fatal("an index found for another text")
			}
			for k := 0; k < len(data); k++ {
				bad := filecache.New(1 << 20)
				bad.Set(fileIndexKind, fileIndexKey(src[:len(src)/3]), data[:k])
				for _, l := range indexedChunks(bad, src[:len(src)/3]) {
					if l.Pos < 0 || l.End < l.Pos || l.End > len(src)/3 {
						t.Fatalf("a cut index gives %v", l)
					}
				}
			}
		})
	}
}

func anyChunkErr(f *File) bool {
	for _, c := range f.Chunks {
		if c.Err != nil {
			return true
		}
	}
	return false
}

func sameFile(t *testing.T, what string, got, want *File) {
	t.Helper()
	if !reflect.DeepEqual(got.Stmts, want.Stmts) {
		t.Fatalf("%s: statements differ", what)
	}
	if !reflect.DeepEqual(got.Errors, want.Errors) {
		t.Fatalf("%s: errors %v, want %v", what, got.Errors, want.Errors)
	}
	if len(got.Chunks) != len(want.Chunks) {
		t.Fatalf("%s: %d chunks, want %d", what, len(got.Chunks), len(want.Chunks))
	}
	for i := range got.Chunks {
		g, w := got.Chunks[i], want.Chunks[i]
		if g.Loc != w.Loc || g.hash != w.hash || !reflect.DeepEqual(g.Err, w.Err) || !reflect.DeepEqual(g.nested, w.nested) {
			t.Fatalf("%s: chunk %d at %v differs from %v", what, i, g.Loc, w.Loc)
		}
	}
}

// TestExecutableID: the build ID in every key is read from the binary's
// Go note (in its first 4 KB), not the fallback of its size and time.
func TestExecutableID(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ELF only")
	}
	id := executableID()
	if id == "?" || strings.Contains(id, ":") || strings.Count(id, "/") < 1 {
		t.Fatalf("executableID() = %q, not a Go build ID", id)
	}
}
