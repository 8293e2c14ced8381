package puppet

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// wholeParse is a parse as it was before chunks were cut from a stream:
// the whole file lexed first.
func wholeParse(src []byte) *File { return (&Parser{whole: true}).Parse(src) }

// diffFiles names the first difference between two parses of src, or "".
// Everything is compared: chunks (with their hashes), statements deeply,
// errors in order.
func diffFiles(src []byte, want, got *File) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	if len(want.Chunks) != len(got.Chunks) {
		return fmt.Sprintf("%d chunks, want %d", len(got.Chunks), len(want.Chunks))
	}
	for i := range want.Chunks {
		a, b := want.Chunks[i], got.Chunks[i]
		if !reflect.DeepEqual(a, b) {
			x, y := "", ""
			for _, s := range a.Stmts {
				x += dump(s)
			}
			for _, s := range b.Stmts {
				y += dump(s)
			}
			return fmt.Sprintf("chunk %d differs: want %v %v %v %.300s\n\tgot %v %v %v %.300s",
				i, a.Loc, a.Err, a.hash, x, b.Loc, b.Err, b.hash, y)
		}
	}
	if !reflect.DeepEqual(want.Errors, got.Errors) {
		return fmt.Sprintf("errors %v, want %v", got.Errors, want.Errors)
	}
	return "statements differ"
}

// streamInputs are manifests on the edges of chunking: the grammar
// seeds, every fixture, and mangled versions of them (cut short, an
// unclosed bracket or quote, a heredoc opened before a statement).
func streamInputs() []string {
	inputs := append([]string(nil), diffSeeds...)
	inputs = append(inputs,
		"", "\n", "# only a comment\n", "notify { 'a': }", "$x = 1\n$y = 2\n",
		"$a = @(E)\n  text\n  | E\nnotify { 'x': }\n$b = @(\"F\"/t)\n${a}\\t\nF\nnotify { 'y': }",
		"notify { 'a': message => @(E) }\nbody\nE\nnotify { 'b': }\n",
		"$x = 4 /\n2\nnotify { 'a': }\n$y = /re/\n",
		"class a {\n  $x = [1, 2\nnotify { 'b': }\nclass c { }\n",
		"foo(\nnotify { 'a': }\n)\n}\n}\nnotify { 'b': }\n",
		"notify { \"unterminated: }\nnotify { 'b': }\n",
		"/* unterminated comment\nnotify { 'a': }",
	)
	for _, g := range []string{"../../analysis/puppet/testdata/*.txtar", "../../analysis/puppet/testdata/*/*.txtar", "../../lsp/testdata/*.txtar"} {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			data, _ := os.ReadFile(p)
			for _, part := range strings.Split(string(data), "\n-- ") {
				inputs = append(inputs, part)
			}
		}
	}
	n := len(inputs)
	for i := 0; i < n; i++ {
		s := inputs[i]
		inputs = append(inputs, s[:len(s)/2], s[:len(s)*2/3]+"{"+s[len(s)*2/3:], s[:len(s)/3]+"'"+s[len(s)/3:],
			s[:len(s)/4]+"\n$h = @(H)\n"+s[len(s)/4:])
	}
	return inputs
}

// parallelParse is a first parse on several goroutines whatever the
// size of src, batch tokens or so per batch.
func parallelParse(src []byte, batch int) *File {
	defer func(m, b int) { parallelMin, batchTokens = m, b }(parallelMin, batchTokens)
	parallelMin, batchTokens = 0, batch
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	return Parse(src)
}

// streamDiff parses src the old way and the streaming ways (one
// goroutine; several with batches of one chunk, of a few and of many)
// and names the first difference, or "".
func streamDiff(src []byte) string {
	want := wholeParse(src)
	if msg := diffFiles(src, want, Parse(src)); msg != "" {
		return "streaming first parse: " + msg
	}
	for _, batch := range []int{1, 7, 300} {
		if msg := diffFiles(src, want, parallelParse(src, batch)); msg != "" {
			return fmt.Sprintf("parallel first parse, batches of %d tokens: %s", batch, msg)
		}
	}
	return ""
}

// checkStream reports streamDiff as a test error.
func checkStream(t *testing.T, name string, src []byte) bool {
	t.Helper()
	if msg := streamDiff(src); msg != "" {
		t.Errorf("%s: %s", name, msg)
		return false
	}
	return true
}

// TestStreamEquivalence: a first parse that lexes as it cuts chunks, on
// one goroutine or several, gives exactly the chunks, statements and
// errors of one that lexes the whole file first, on every input of
// streamInputs and, with ORDERING_CORPUS, on every manifest of the corpus.
func TestStreamEquivalence(t *testing.T) {
	ins := streamInputs()
	for i, in := range ins {
		checkStream(t, fmt.Sprintf("input %d %.40q", i, in), []byte(in))
	}
	files := 0
	if root := os.Getenv("ORDERING_CORPUS"); root != "" {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".pp" {
				return nil
			}
			src, _ := os.ReadFile(p)
			files++
			checkStream(t, p, src)
			return nil
		})
	}
	t.Logf("%d inputs, %d corpus files", len(ins), files)
}

// TestStreamEdits: edits after a streaming first parse (the second parse
// lexes whole and keeps the tokens, later ones lex incrementally; files
// over maxIncrementalLex stream every time, reusing chunks) give exactly
// what a fresh parse of each version gives.
func TestStreamEdits(t *testing.T) {
	base := editManifest
	var big []byte
	for i := 0; i < 8; i++ {
		big = append(big, base...)
	}
	edits := []string{"x", "'", "\"", "{", "}", "(", "\n", "#", "$", "notify { 'q': }\n", "@(F)\n", "/", " ", ""}
	for _, limit := range []int{maxIncrementalLex, 100, -1} {
		func() {
			defer func(l, m, b int) { maxIncrementalLex, parallelMin, batchTokens = l, m, b }(maxIncrementalLex, parallelMin, batchTokens)
			maxIncrementalLex = limit
			if limit < 0 {
				// every version streams, and parses on several
				// goroutines when nothing is cached
				maxIncrementalLex, parallelMin, batchTokens = 100, 0, 5
			}
			seed := uint32(5)
			rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
			src := append([]byte(nil), big...)
			ps := &Parser{}
			if msg := diffFiles(src, wholeParse(src), ps.Parse(src)); msg != "" {
				t.Fatalf("limit %d, first parse: %s", limit, msg)
			}
			for i := 0; i < 600; i++ {
				next, at := randomEdit(rnd, src, big, edits)
				if msg := diffFiles(next, wholeParse(next), ps.Parse(next)); msg != "" {
					t.Fatalf("limit %d, edit %d at %d: %s", limit, i, at, msg)
				}
				src = next
			}
		}()
	}
}

// FuzzStreamEquivalence: the streaming first parse of any input, on one
// goroutine or several, equals the whole-token parse.
func FuzzStreamEquivalence(f *testing.F) {
	for _, s := range streamInputs()[:len(diffSeeds)+12] {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if msg := streamDiff(src); msg != "" {
			t.Fatal(msg)
		}
	})
}
