package main

import (
	"os"
	"runtime/debug"
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
// softly by batchMemoryLimit. `check .` on operations-puppet keeps
// ~170 MB live; collecting at twice that spent a quarter of the CPU in
// the collector. GOGC and GOMEMLIMIT override it.
func batchMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(batchMemoryLimit)
	}
}

// batchMemoryLimit: the heap of a one-shot command stays under it while
// what is live fits (then Go's usual pacing resumes; past it the
// collector takes at most half the CPU).
const batchMemoryLimit = 700 << 20
