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
// slows down instead of failing). An editor keeps the server for days;
// Go's default target lets the heap grow to twice what is live, and on
// operations-puppet the complete analysis after an edit keeps ~330 MB
// live at its peak (the last result, the run cache and the runs being
// rebuilt), ~180 MB between edits. Measured there with TestLatency
// (10 edits): with 560 MiB the server stays at 531-556 MB RSS, the
// edited file's diagnostics arrive in p50 111 ms / p95 133 ms and the
// complete analysis takes 9.7 s; with 2 GiB, 595-736 MB, 97/141 ms,
// 9.0 s. Small workspaces never reach it. GOMEMLIMIT overrides it.
const defaultMemoryLimit = 560 << 20

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
