package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestBatchLimitFollowsLiveHeap: a one-shot command's soft memory limit
// is batchMemoryLimit while little is live, and 2.5x what the last
// collection marked once that is more, so a big workspace is not
// collected without pause near a fixed limit.
func TestBatchLimitFollowsLiveHeap(t *testing.T) {
	if got := liveLimit(100 << 20); got != batchMemoryLimit {
		t.Errorf("100 MB live: limit %d MB, want %d MB", got>>20, batchMemoryLimit>>20)
	}
	if got := liveLimit(200 << 20); got != 500<<20 {
		t.Errorf("200 MB live: limit %d MB, want 500 MB", got>>20)
	}
	old := debug.SetMemoryLimit(batchMemoryLimit)
	defer debug.SetMemoryLimit(old)
	stop := followLiveHeap()
	defer stop()
	live := make([]byte, 200<<20)
	for i := range live {
		if i%4096 == 0 {
			live[i] = 1
		}
	}
	want := int64(len(live)) * 5 / 2
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) < want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	if got := debug.SetMemoryLimit(-1); got < want {
		t.Errorf("with 200 MB live the limit stayed at %d MB, want at least %d MB", got>>20, want>>20)
	}
	live = nil
	stop()
	runtime.GC()
}
