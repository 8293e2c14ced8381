package lsp

import (
	"testing"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// An offset maps across an edit unless the edit touched it; a span maps
// unless it overlaps the edited region.
func TestShift(t *testing.T) {
	old := []byte("step a\nstep b\nb after a\n")
	cur := []byte("step a\n# typed\nstep b\nb after a\n") // 8 bytes inserted at 7
	m := newShift("u", old, cur)
	for _, c := range []struct {
		cur, old int
		ok       bool
	}{{0, 0, true}, {7, 7, true}, {8, 0, false}, {14, 0, false}, {15, 7, true}, {20, 12, true}, {len(cur), len(old), true}} {
		if got, ok := m.toOld(c.cur); ok != c.ok || (ok && got != c.old) {
			t.Errorf("toOld(%d) = %d, %v; want %d, %v", c.cur, got, ok, c.old, c.ok)
		}
	}
	for _, c := range []struct {
		old, want source.Span
		ok        bool
	}{
		{source.Span{URI: "u", Start: 5, End: 6}, source.Span{URI: "u", Start: 5, End: 6}, true},
		{source.Span{URI: "u", Start: 12, End: 13}, source.Span{URI: "u", Start: 20, End: 21}, true},
		{source.Span{URI: "u", Start: 5, End: 8}, source.Span{}, false},
		{source.Span{URI: "other", Start: 12, End: 13}, source.Span{URI: "other", Start: 12, End: 13}, true},
	} {
		if got, ok := m.span(c.old); ok != c.ok || (ok && got != c.want) {
			t.Errorf("span(%v) = %v, %v; want %v, %v", c.old, got, ok, c.want, c.ok)
		}
	}
	// a deletion, and texts that agree: the identity
	if got, ok := newShift("u", cur, old).toOld(7); !ok || got != 7 {
		t.Errorf("after a deletion toOld(7) = %d, %v", got, ok)
	}
	if got, ok := newShift("u", old, old).toOld(9); !ok || got != 9 {
		t.Errorf("same text: toOld(9) = %d, %v", got, ok)
	}
}
