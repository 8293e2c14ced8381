package cfengine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no input may panic or hang the parser, and every span must
// lie inside the text.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/cfpromises/*.cf")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("@if minimum_version(3.18)\nbundle agent x { vars: \"a\" string => f(g(h(\"x\"))); }\n@else\n@endif\n"))
	f.Add([]byte("bundle agent m { reports: \"$(x)\":: \"y\" -> { \"p\" } if => \"a|b\"; }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := Parse(data)
		for _, e := range file.Errors {
			if e.Span.Start < 0 || e.Span.End > len(data) || e.Span.Start > e.Span.End {
				t.Fatalf("error span %v outside text of %d bytes", e.Span, len(data))
			}
		}
		for _, b := range file.Blocks {
			if b.Span.Start < 0 || b.Span.End > len(data) {
				t.Fatalf("block span %v outside text of %d bytes", b.Span, len(data))
			}
		}
		// a warm cache that saw the blocks at other offsets gives the
		// same parse
		p := NewParser()
		p.Parse(append([]byte("# moved\n"), data...))
		if dumpFile(p.Parse(data)) != dumpFile(file) {
			t.Fatalf("cached parse differs from a fresh one")
		}
	})
}
