package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// What is live at the peak of a one-shot command decides its peak RSS
// (the collector lets the heap grow to a multiple of it), and
// ORDERING_MEMPROFILE's profile, taken at exit, cannot show it. With
// ORDERING_HEAPPROFILE=FILE, check writes a heap profile (read it with
// `go tool pprof -sample_index=inuse_space`) once the analysis is done,
// before the output is written, or, with ORDERING_HEAPPROFILE_AT=DURATION
// (e.g. 4s), that long after the program started, wherever it is then.

var heapProfileOnce sync.Once

// startHeapProfile arms the timer of ORDERING_HEAPPROFILE_AT.
func startHeapProfile() {
	at := os.Getenv("ORDERING_HEAPPROFILE_AT")
	if os.Getenv("ORDERING_HEAPPROFILE") == "" || at == "" {
		return
	}
	d, err := time.ParseDuration(at)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ORDERING_HEAPPROFILE_AT:", err)
		return
	}
	time.AfterFunc(d, func() { writeHeapProfile("at " + at) })
}

// heapProfileAnalysed is the default point: the results are all live.
func heapProfileAnalysed() {
	if os.Getenv("ORDERING_HEAPPROFILE_AT") == "" {
		writeHeapProfile("analysed")
	}
}

func writeHeapProfile(when string) {
	path := os.Getenv("ORDERING_HEAPPROFILE")
	if path == "" {
		return
	}
	heapProfileOnce.Do(func() {
		runtime.GC() // the profile holds what the last collection saw
		out, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ORDERING_HEAPPROFILE:", err)
			return
		}
		defer out.Close()
		pprof.Lookup("heap").WriteTo(out, 0)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintf(os.Stderr, "ORDERING_HEAPPROFILE (%s): %d MB live\n", when, m.HeapAlloc>>20)
	})
}
