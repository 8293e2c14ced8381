package puppet_test

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func analyzeText(sys analysis.System, text []byte) *analysis.Result {
	ws := source.NewWorkspace()
	f := source.NewFile("untitled:bench.pp", "", text)
	ws.SetOverlay(f)
	req := &analysis.Request{Ctx: context.Background(), Files: []*source.File{f}, Workspace: ws, Settings: analysis.Settings{}}
	return sys.Analyze(req)
}

// BenchmarkAnalyzeCold: parse and analyse a generated manifest from
// scratch (a new System each time: no chunk cache).
func BenchmarkAnalyzeCold(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		text := genManifest(n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			c := cpuTime()
			for i := 0; i < b.N; i++ {
				res := analyzeText(puppet.New(), text)
				if len(res.Runs) == 0 || len(res.Runs[0].Steps) < n {
					b.Fatalf("runs %d steps %d", len(res.Runs), len(res.Runs[0].Steps))
				}
			}
			reportCPU(b, c)
		})
	}
}

// BenchmarkEdit: a one-character edit in a 10,000-line manifest, then a
// fresh analysis with the same System (unchanged chunks are reused).
func BenchmarkEdit(b *testing.B) {
	text := genManifest(3300) // ~10,000 lines
	lines := 0
	for _, c := range text {
		if c == '\n' {
			lines++
		}
	}
	sys := puppet.New()
	analyzeText(sys, text)
	mid := len(text) / 2
	for text[mid] != '\'' {
		mid++
	}
	mid-- // the last character of a title
	b.ReportAllocs()
	b.ReportMetric(float64(lines), "lines")
	b.ResetTimer()
	c := cpuTime()
	for i := 0; i < b.N; i++ {
		edited := append([]byte(nil), text...)
		edited[mid] = byte('a' + i%26)
		analyzeText(sys, edited)
	}
	reportCPU(b, c)
}

// BenchmarkEditInsert: typing in the middle of a 10,000-line manifest:
// a character inserted into a title, then deleted, one keystroke per
// operation (every offset after the edit moves).
func BenchmarkEditInsert(b *testing.B) {
	text := genManifest(3300)
	sys := puppet.New()
	analyzeText(sys, text)
	mid := len(text) / 2
	for text[mid] != '\'' {
		mid++
	}
	inserted := append(append(append([]byte(nil), text[:mid]...), 'x'), text[mid:]...)
	b.ReportAllocs()
	b.ResetTimer()
	c := cpuTime()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			analyzeText(sys, inserted)
		} else {
			analyzeText(sys, text)
		}
	}
	reportCPU(b, c)
}

// BenchmarkMemory100k reports the live heap holding the result of a
// 100k-resource analysis.
func BenchmarkMemory100k(b *testing.B) {
	text := genManifest(100000)
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sys := puppet.New()
		res := analyzeText(sys, text)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "live-MB")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "alloc-MB")
		runtime.KeepAlive(res)
		runtime.KeepAlive(sys)
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// says what an operation costs better than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}
