package analysistest

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// ParserSeeds returns the inputs the fuzz targets of the package in dir
// (a parser) are seeded with: every string literal in the bodies of its
// Fuzz functions (their f.Add arguments and the tables they range over,
// read from the test files with go/parser, so the list never drifts from
// the parser's tests) and the committed corpus under testdata/fuzz.
func ParserSeeds(t testing.TB, dir string) [][]byte {
	t.Helper()
	var out [][]byte
	tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no test files in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	for _, name := range tests {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Fuzz") || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						out = append(out, []byte(s))
					}
				}
				return true
			})
		}
	}
	corpus, _ := filepath.Glob(filepath.Join(dir, "testdata", "fuzz", "*", "*"))
	for _, name := range corpus {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			for _, pre := range []string{"string(", "[]byte("} {
				if v, ok := strings.CutPrefix(line, pre); ok {
					if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
						out = append(out, []byte(s))
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fuzz seeds in %s", dir)
	}
	return out
}

// FixtureInputs returns the input files of the txtar fixtures under dir
// whose names end in one of exts (".pp", ".sls"...).
func FixtureInputs(t testing.TB, dir string, exts ...string) [][]byte {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
	var out [][]byte
	for _, name := range names {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			for _, e := range exts {
				if strings.HasSuffix(f.Name, e) {
					out = append(out, f.Data)
					break
				}
			}
		}
	}
	return out
}

// CheckTokens checks the highlighting of f: every token a system gives
// lies within the text; flattened as the server flattens them, they are
// sorted, do not overlap, have a kind and start and end on characters;
// and a system that keeps a parse between calls (each URI its own cache)
// gives for f after having seen prev (an earlier text of the document)
// what a fresh one gives (fresh may be nil: then no such check).
func CheckTokens(t testing.TB, tk analysis.Tokenizer, fresh func() analysis.Tokenizer, f *source.File, prev []byte) {
	t.Helper()
	text := f.Text
	if prev != nil && fresh != nil {
		tk.Tokens(source.NewFile(f.URI, f.Path, prev))
	}
	raw := tk.Tokens(f)
	for _, x := range raw {
		if x.Start < 0 || x.End < x.Start || x.End > len(text) {
			t.Fatalf("token %v %v outside the text of %d bytes: %q", x.Start, x.End, len(text), text)
		}
	}
	flat := analysis.FlattenTokens(raw, text)
	end := 0
	for _, x := range flat {
		if x.Start < end || x.End <= x.Start || x.End > len(text) || x.Kind == analysis.TokNone {
			t.Fatalf("flattened token %+v after %d: not sorted, overlapping, empty, out of %d bytes or kindless: %q", x, end, len(text), text)
		}
		for _, b := range []int{x.Start, x.End} {
			if b < len(text) && !utf8.RuneStart(text[b]) {
				t.Fatalf("token %+v cuts a character: %q", x, text)
			}
		}
		end = x.End
	}
	if prev != nil && fresh != nil {
		want := analysis.FlattenTokens(fresh().Tokens(f), text)
		if !sameTokens(flat, want) {
			t.Fatalf("tokens after an edit from %q differ from a fresh system's on %q:\n got %v\nwant %v", prev, text, flat, want)
		}
	}
}

func sameTokens(a, b []analysis.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// EditOf is an earlier text of src for CheckTokens: src with its middle
// third removed and a line added at the top, so a parse cache reuses
// shifted chunks.
func EditOf(src []byte) []byte {
	n := len(src)
	var b bytes.Buffer
	b.WriteString("\n\n")
	b.Write(src[:n/3])
	b.Write(src[2*n/3:])
	return b.Bytes()
}

// FilesIn returns the files under dir (recursively) whose names end in
// one of exts.
func FilesIn(t testing.TB, dir string, exts ...string) [][]byte {
	t.Helper()
	var out [][]byte
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				if b, err := os.ReadFile(p); err == nil {
					out = append(out, b)
				}
				break
			}
		}
		return nil
	})
	return out
}
