package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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

func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}

// batchMemory sets the collector for a one-shot command: collect when the
// heap is five times what is live (not twice, Go's default), bounded
// softly by batchMemoryLimit or batchLiveFactor times what is live,
// whichever is larger (followLiveHeap). GOGC and GOMEMLIMIT override it.
//
// `check .` on operations-puppet allocates ~1.45 GB in all and keeps at
// most ~105 MB live (159 MB before a one-shot analysis forgot the shared
// evaluations runs stopped asking for, analysis/puppet/memoage.go).
// Collecting at twice what is live spent a quarter of the CPU in the
// collector; with a 700 MiB limit the heap grew to it (peak RSS
// 650-720 MB) in 6-7 collections. Under 350 MiB: 10 collections, peak RSS
// 368-376 MB, and about the same CPU (user+system 8.5-10.1 s against
// 8.3-10.1 s, load 6-8: the collector's extra ~1 s is paid back by the
// page faults of the memory not touched). 300 MiB: 12 collections,
// 325-330 MB, 0.5-1 s more CPU.
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
// what is live is below a third of it.
const batchMemoryLimit = 350 << 20

// batchLiveFactor: past batchMemoryLimit/batchLiveFactor live, the limit
// follows what is live, so that a bigger workspace collects every
// (batchLiveFactor-1) times its live heap allocated, as Go's pacing with
// GOGC=200 would, instead of collecting without pause near a fixed limit
// (where the collector takes up to half the CPU).
const batchLiveFactor = 3

// followLiveHeap sets the memory limit after every collection to
// max(batchMemoryLimit, batchLiveFactor x the live heap it found).
func followLiveHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// a cleanup runs once the collector has found its object
		// unreachable: once per collection, as each arms the next
		runtime.AddCleanup(new([64]byte), func(struct{}) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live := int64(sample[0].Value.Uint64())
				debug.SetMemoryLimit(max(batchMemoryLimit, batchLiveFactor*live))
			}
			arm()
		}, struct{}{})
	}
	arm()
}
