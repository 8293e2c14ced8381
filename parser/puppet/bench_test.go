package puppet

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// corpusSources reads every .pp under $ORDERING_CORPUS (skips without it).
func corpusSources(b *testing.B) ([][]byte, int) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		b.Skip("set ORDERING_CORPUS")
	}
	var srcs [][]byte
	n := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".pp" {
			if s, err := os.ReadFile(p); err == nil {
				srcs = append(srcs, s)
				n += len(s)
			}
		}
		return nil
	})
	return srcs, n
}

// BenchmarkCorpusParse parses every manifest of the corpus once, cold
// (no chunk cache), on one core, with the participle grammar.
func BenchmarkCorpusParse(b *testing.B) {
	srcs, n := corpusSources(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range srcs {
			(&Parser{NoCache: true}).Parse(s)
		}
	}
}

// BenchmarkCorpusParseHand is BenchmarkCorpusParse with the hand-written
// parser the grammar replaced (hand_test.go).
func BenchmarkCorpusParseHand(b *testing.B) {
	srcs, n := corpusSources(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range srcs {
			(&Parser{hand: true}).Parse(s)
		}
	}
}

// BenchmarkCorpusParseCached is BenchmarkCorpusParse with every chunk in
// the chunk cache's memory (a fresh parser per file, as a new analysis
// has): what decoding costs. Decoding from disk adds reading the files.
func BenchmarkCorpusParseCached(b *testing.B) {
	srcs, n := corpusSources(b)
	fc := filecache.New(1 << 30)
	for _, s := range srcs {
		(&Parser{fc: fc}).Parse(s)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, s := range srcs {
			ps := &Parser{fc: fc}
			ps.Parse(s)
			if ps.Parsed > 0 && ps.Decoded == 0 {
				b.Fatal("nothing decoded")
			}
		}
	}
}

// manifest10k is a 10,000-line manifest: classes of resources with
// attributes, relationships and a chain.
func manifest10k() []byte {
	var b strings.Builder
	for c := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < 10000; c++ {
		fmt.Fprintf(&b, "class app::c%d {\n  package { 'pkg%d': ensure => installed }\n", c, c)
		fmt.Fprintf(&b, "  file { '/srv/c%d':\n    ensure  => directory,\n    require => Package['pkg%d'],\n  }\n", c, c)
		fmt.Fprintf(&b, "  service { 'svc%d': ensure => running, subscribe => File['/srv/c%d'] }\n", c, c)
		fmt.Fprintf(&b, "  if $facts['os']['family'] == 'Debian' { notify { \"n${c}%d\": } }\n}\n", c)
	}
	return []byte(b.String())
}

// benchReparse: one character changed in the middle of a 10,000-line
// manifest, re-parsed by a Parser that parsed the file before (its chunk
// cache holds every other chunk).
func benchReparse(b *testing.B, hand bool) {
	text := manifest10k()
	ps := &Parser{hand: hand, NoCache: true}
	ps.Parse(text)
	// the last character of a package's title in the middle of the file
	mid := len(text)/2 + strings.Index(string(text[len(text)/2:]), "'pkg") + 1
	mid += strings.IndexByte(string(text[mid:]), '\'') - 1
	b.ReportMetric(float64(strings.Count(string(text), "\n")), "lines")
	i := 0
	for b.Loop() {
		edited := append([]byte(nil), text...)
		edited[mid] = byte('a' + i%26)
		i++
		if f := ps.Parse(edited); len(f.Errors) > 0 || ps.Parsed != 1 {
			b.Fatalf("errors %v, %d chunks parsed", f.Errors, ps.Parsed)
		}
	}
}

func BenchmarkReparseEdit(b *testing.B)     { benchReparse(b, false) }
func BenchmarkReparseEditHand(b *testing.B) { benchReparse(b, true) }

// bigFile reads $ORDERING_PARSE_FILE (skips without it): one huge
// manifest, e.g. the generated 100k-resource one
// (GEN_OUT=... go test -run TestWriteGenerated ./analysis/puppet/).
func bigFile(tb testing.TB) []byte {
	p := os.Getenv("ORDERING_PARSE_FILE")
	if p == "" {
		tb.Skip("set ORDERING_PARSE_FILE")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return src
}

// BenchmarkParseFile is a first parse of one huge file with the parser
// the analysis uses; live-MB is the heap its tree holds afterwards.
func BenchmarkParseFile(b *testing.B) {
	src := bigFile(b)
	b.SetBytes(int64(len(src)))
	var f *File
	for b.Loop() {
		f = Parse(src)
	}
	b.StopTimer()
	f = nil
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f = Parse(src)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(f)
	b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/1e6, "live-MB")
}

// TestParseFileMemory parses $ORDERING_PARSE_FILE once and logs the live
// heap of the tree and the peak heap of the parse (run the test binary
// under /usr/bin/time for the peak RSS).
func TestParseFileMemory(t *testing.T) {
	src := bigFile(t)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f := Parse(src)
	runtime.ReadMemStats(&m1)
	total := m1.TotalAlloc - m0.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(f)
	t.Logf("%d bytes, %d stmts, %d errors: live heap after Parse %.1f MB, allocated %.1f MB",
		len(src), len(f.Stmts), len(f.Errors), float64(m1.HeapAlloc-m0.HeapAlloc)/1e6, float64(total)/1e6)
}
