package lsp

import (
	"testing"
	"time"
)

// TestPauseOnlyWhileTyping: the complete analysis waits typingPause only
// after an edit that came within typingGap of the one before (a burst of
// typing); an edit that comes alone (a paste, a quick fix) is analysed
// at once.
func TestPauseOnlyWhileTyping(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	sn := newSnapshotter(nil)
	sn.now = func() time.Time { return at }
	edit := func(after time.Duration) uint64 {
		at = at.Add(after)
		sn.invalidate("file:///m.pp")
		return sn.version
	}
	steps := []struct {
		after  time.Duration
		typing bool
	}{
		{0, false},                     // the first edit
		{120 * time.Millisecond, true}, // keystrokes
		{300 * time.Millisecond, true},
		{typingGap + time.Millisecond, false}, // a paste after a pause
		{typingGap, true},                     // (not longer than the gap)
	}
	for i, st := range steps {
		v := edit(st.after)
		if got := sn.typing(v); got != st.typing {
			t.Errorf("edit %d (%v after the one before): typing = %v, want %v", i, st.after, got, st.typing)
		}
	}
	v := edit(5 * time.Second)
	edit(time.Millisecond)
	if !sn.typing(v) {
		t.Errorf("a version a newer edit replaced still counts as alone")
	}
}
