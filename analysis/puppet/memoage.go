package puppet

// How long a one-shot analysis keeps the recordings of shared evaluation
// (defmemo.go). They were the largest part of what a `check` of
// operations-puppet keeps live at its peak (~65 of ~160 MB): the memo
// only grows, and most runs are those of the classes and defines nothing
// declares, which come last, sorted by name, so the bodies of one module
// are replayed by a few neighbouring runs and then never again. An
// analysis that will not run again (Request.Once) counts the runs it
// starts and, every quarter window, forgets the keys no run asked for in
// the last window of runs (MemoWindow, defaultMemoWindow). Forgetting
// costs only time: a later run of such a key evaluates the body, and
// records it again the second time the key comes; what a run computes
// does not depend on what is recorded (TestMemoForgetSame). The language
// server's own analyses (not Once) keep every recording to the end.
//
// Measured on operations-puppet (1,129 runs; max live heap from
// GODEBUG=gctrace=1 under GOGC=50): keeping everything, 159 MB live,
// 23,572 define and 6,880 class bodies evaluated; a window of 64 runs,
// 101-107 MB, 25,500 and 7,280 (8% and 6% more); 32 runs, 101 MB and
// 14% more; 128 runs, 122 MB. Clearing a forgotten key's recordings but
// keeping the key (so its next evaluation records at once) kept more and
// saved little.
type memoAge struct {
	runs      int32 // runs started
	swept     int32 // runs at the last sweep
	forgotten int   // keys forgotten
}

const defaultMemoWindow = 64

func (a *analyzer) memoWindow() int32 {
	switch w := a.sys.MemoWindow; {
	case w < 0:
		return 0
	case w == 0:
		return defaultMemoWindow
	default:
		return int32(w)
	}
}

// runStarted counts a run of a one-shot analysis and sweeps the memo when
// a quarter window has passed.
func (a *analyzer) runStarted() {
	if !a.req.Once || a.memo == nil || a.sys == nil || a.sys.NoSharedEval {
		return
	}
	window := a.memoWindow()
	if window == 0 {
		return
	}
	dm := a.defs()
	dm.mu.Lock()
	defer dm.mu.Unlock()
	dm.age.runs++
	if dm.age.runs-dm.age.swept < max(window/4, 1) {
		return
	}
	dm.age.swept = dm.age.runs
	old := dm.age.runs - window
	dm.age.forgotten += forget(dm.entries, old) + forget(dm.classes, old)
}

// forget deletes the slots last asked for before run old.
func forget[K comparable](m map[K]*memoSlot, old int32) int {
	n := 0
	for k, sl := range m {
		if sl.last < old {
			delete(m, k)
			n++
		}
	}
	return n
}
