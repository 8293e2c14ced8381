package cfengine

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The hand-written reader (fast.go) must build exactly the tree
// participle builds, on every input participle accepts, and give up on
// every input participle rejects (participle then reports the error).

// parseBoth parses every chunk of text with participle alone and with the
// fast path, and reports the first chunk where they differ.
func parseBoth(t *testing.T, name string, text []byte) {
	t.Helper()
	masked, _, _ := maskMacros(text, DefaultVersion)
	var f File
	for _, ch := range splitChunks(masked, &f) {
		src := masked[ch.start:ch.end]
		toks, lerr := lex(src, 0, len(src))
		if lerr != nil {
			continue
		}
		pl, err := blockParserUpgrade(src, toks)
		if err != nil {
			t.Fatal(err)
		}
		g, perr := blockParser.ParseFromLexer(pl)
		fg := fastParse(src, toks)
		switch {
		case perr != nil && fg != nil:
			t.Errorf("%s: participle rejects (%v) a block the fast reader accepts:\n%s", name, perr, src)
		case perr == nil && fg == nil:
			t.Errorf("%s: the fast reader rejects a block participle accepts:\n%s", name, src)
		case perr == nil:
			var e1, e2 []Error
			b1, b2 := convert(g, &e1), convert(fg, &e2)
			if !reflect.DeepEqual(b1, b2) || !reflect.DeepEqual(e1, e2) {
				t.Errorf("%s: trees differ for:\n%s", name, src)
			}
		}
	}
}

func TestFastReaderAgrees(t *testing.T) {
	var files []string
	for _, g := range []string{"testdata/cfpromises/*.cf", "../../analysis/cfengine/testdata/oracle/*.cf"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if root := os.Getenv("ORDERING_CORPUS"); root != "" {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".cf") || strings.HasSuffix(p, ".cf.in")) {
				files = append(files, p)
			}
			return nil
		})
	}
	t.Logf("%d files", len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parseBoth(t, f, data)
	}
	parseBoth(t, "generated", genPolicy(50))
	for _, s := range fastSeeds {
		parseBoth(t, "seed", []byte(s))
	}
}

// fastSeeds are small blocks on the edges of the grammar, valid or not.
var fastSeeds = []string{
	"bundle agent a(x, y,) { vars: \"v\" string => f(g(\"a\",), $(x), h()), if => \"a\"; }",
	"bundle agent a() { reports: \"p\" -> { \"a\", \"b\", } comment => \"c\"; }",
	"bundle agent a { reports: \"p\" -> \"a\", comment => \"c\"; }",
	"bundle agent a { reports: \"p\" comment => \"c\", ; }",
	"bundle agent a { reports: \"p\" comment => ; }",
	"bundle agent a { reports: \"p\" comment => f(; }",
	"bundle agent a { reports: \"p\" comment => {,}; }",
	"bundle agent a { reports: \"p\" comment => {}; }",
	"bundle agent a { reports: \"p\" comment => f(,); }",
	"bundle agent a { reports: \"p\" comment => $(f)(x); }",
	"bundle agent a { reports: \"p\" comment => { f(x) , \"y\" , @(z) }; }",
	"bundle agent a { reports: \"p\" comment => { { \"nested\" } }; }",
	"bundle agent a { reports: linux:: \"p\"; \"$(c)\":: \"q\"; }",
	"bundle agent a { x => \"y\"; }",
	"body common control { bundlesequence => { \"a\" }; linux:: inputs => { }; }",
	"body common control { \"x\"; }",
	"body common control",
	"body common control {",
	"body common control { } }",
	"body common { }",
	"bundle agent a ( { }",
	"bundle agent a (x y) { }",
	"bundle agent a { reports: \"x\" a => b c; }",
	"promise agent x { path => \"/x\"; interpreter => \"/bin/python3\"; }",
}

func FuzzFastReader(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	seeds, _ := filepath.Glob("testdata/cfpromises/*.cf")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parseBoth(t, "fuzz", data)
	})
}
