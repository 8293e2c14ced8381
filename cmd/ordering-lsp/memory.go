package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// How the garbage collector is set for the two lives of this program: a
// server kept for days, where memory must stay flat, and a one-shot
// command, where time matters and the process is gone in seconds.

// defaultMemoryLimit bounds the server's heap softly (runtime/debug's
// memory limit: the collector works harder near it, it is not a cap; past
// it the collector takes at most half the CPU, so a bigger workspace
// slows down instead of failing). An editor keeps the server for days:
// between analyses the heap is given back (lsp.releaseWhenSettled), so
// the limit decides how much the collector works during one. Measured on
// operations-puppet with TestLatency (real binary, 4 edits in
// profile::base, same hour, session 15): with 560 MiB the complete
// analysis after an edit took p50 10.8 s at a 560 MB peak, the collector
// ~30% of the server's CPU (marking under the limit, assists); with
// 1 GiB, 7.7 s at a 956 MB peak. Settled, 3 s after the last analysis:
// 300 / 336 MB. Small workspaces never reach it. GOMEMLIMIT overrides it.
const defaultMemoryLimit = 1 << 30

// serverGCPercent: the server collects when the heap is three times what
// is live (Go's default is twice), bounded by the limit above. An edit of
// a class hundreds of runs include allocates ~200 MB over a live heap of
// ~330 MB, so Go's default marked that heap at nearly every edit. Measured
// on operations-puppet (TestLatency, a package added to profile::base 8
// times, same hour, load 1.4-1.7, session 36): server CPU per edit p50
// 1.05-1.21 s with 100, 0.87-0.95 s with 200 (a letter typed into the
// title 1.39-1.59 against 1.13-1.24 CPU-s), settled RSS 380-381 against
// 383-394 MB, peak 921 against 1006-1024 MB (what the limit bounds);
// after 60 one-line edits, settled 381-382 against 394-398 MB (the
// freed heap is more scattered): within the 400 MB target, with less
// margin. 150 gave no measurable gain in one round. GOGC overrides it.
const serverGCPercent = 200

func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// batchMemory sets the collector for a one-shot command: collect when the
// heap is five times what is live (not twice, Go's default), bounded
// softly by batchMemoryLimit or 2.5 times what is live, whichever is
// larger (liveLimit, followLiveHeap). GOGC and GOMEMLIMIT override it.
//
// `check .` on operations-puppet allocates ~1.45 GB in all and keeps at
// most ~105 MB live (159 MB before a one-shot analysis forgot the shared
// evaluations runs stopped asking for, analysis/puppet/memoage.go).
// Collecting at twice what is live spent a quarter of the CPU in the
// collector; with the earlier 700 MiB limit the heap grew to it (peak
// RSS 650-740 MB, 6-7 collections). Under 350 MiB: peak RSS 349-356 MB,
// 10 collections, the collector ~0.4 CPU-s more (gctrace, median of 5
// rounds), partly paid back by the page faults of memory never touched
// (system time 0.5-0.6 s against 0.8-1.0 s). 300 MiB: 12 collections,
// 325-330 MB, 0.5-1 CPU-s more.
func batchMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(batchMemoryLimit)
		followLiveHeap()
	}
}

// batchMemoryLimit: the heap of a one-shot command stays under it while
// the heap the last collection marked is below 2/5 of it.
const batchMemoryLimit = 350 << 20

// Past that, the limit follows the marked heap (2.5x it), so that a
// bigger workspace is collected every 1.5x its live heap allocated, as
// Go's pacing with GOGC=150 would, instead of without pause near a fixed
// limit (where the collector takes up to half the CPU). The marked heap
// counts what was allocated while marking: on operations-puppet it is
// 125-132 MB under the limit for ~105 MB truly live, so a factor of 3
// raised the limit there (RSS ~400 MB).
func liveLimit(marked int64) int64 { return max(batchMemoryLimit, marked*5/2) }

// followLiveHeap sets the memory limit after every collection to
// liveLimit of the heap it marked, until stop is called.
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var stopped atomic.Bool
	var arm func()
	arm = func() {
		// a cleanup runs once the collector has found its object
		// unreachable: once per collection, as each arms the next
		runtime.AddCleanup(new([64]byte), func(struct{}) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live := int64(sample[0].Value.Uint64())
				debug.SetMemoryLimit(liveLimit(live))
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() { stopped.Store(true) }
}
