package puppet

import (
	"slices"
	"testing"
)

// TestAlongRealigns: numbering a list beside its previous version looks
// up only the items that changed, whatever the edit (items put in, taken
// out, or replaced, one or a block), and gives every item its number.
func TestAlongRealigns(t *testing.T) {
	old := []int32{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	cases := []struct {
		name  string
		items []int32 // the new list's numbers (the table's answers)
		looks int     // lookups at most
	}{
		{"unchanged", old, 0},
		{"one put in", []int32{10, 11, 12, 90, 13, 14, 15, 16, 17, 18, 19}, 1},
		{"two put in", []int32{10, 11, 12, 90, 91, 13, 14, 15, 16, 17, 18, 19}, 2},
		{"one taken out", []int32{10, 11, 12, 14, 15, 16, 17, 18, 19}, 1},
		{"two taken out", []int32{10, 11, 12, 15, 16, 17, 18, 19}, 1},
		{"one replaced", []int32{10, 11, 12, 90, 14, 15, 16, 17, 18, 19}, 2},
		{"two replaced (a title typed over: its two edges)", []int32{10, 11, 90, 91, 14, 15, 16, 17, 18, 19}, 3},
		{"three replaced", []int32{10, 90, 91, 92, 14, 15, 16, 17, 18, 19}, 4},
	}
	for _, c := range cases {
		out := make([]int32, len(c.items))
		looks := 0
		along(out, old, func(i, j int) bool { return c.items[i] == old[j] }, func(i int) int32 {
			looks++
			return c.items[i]
		})
		if !slices.Equal(out, c.items) {
			t.Errorf("%s: numbered %v, want %v", c.name, out, c.items)
		}
		if looks > c.looks {
			t.Errorf("%s: %d lookups, want at most %d", c.name, looks, c.looks)
		}
	}
}
