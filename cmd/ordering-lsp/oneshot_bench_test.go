package main

import (
	"io"
	"os"
	"runtime/debug"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// BenchmarkOneShot runs a command of the program in process, as the
// binary would (the collector set for a one-shot command, the chunk
// cache warm), on ORDERING_ONESHOT_FILE with ORDERING_ONESHOT_CMD
// ("order" by default): where a warm `order` of the generated
// 1,000-resource manifest spends its time, without the program's start.
func BenchmarkOneShot(b *testing.B) {
	file := os.Getenv("ORDERING_ONESHOT_FILE")
	if file == "" {
		b.Skip("set ORDERING_ONESHOT_FILE (GEN_OUT=... GEN_N=1000 go test -run TestWriteGenerated ./analysis/puppet/)")
	}
	args := []string{"order", file}
	if c := os.Getenv("ORDERING_ONESHOT_CMD"); c != "" {
		args = []string{c, "--format", "json", file}
	}
	filecache.Shared().SetDir(b.TempDir())
	defer filecache.Shared().SetDir("")
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	if run(args, nil, io.Discard, io.Discard) > 1 {
		b.Fatal("failed")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(args, nil, io.Discard, io.Discard)
	}
}
