package puppet_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectorTagsPastBits runs the oracle case tags_collector_sources
// (every source of a tag a collector compares) after n collectors whose
// tags match nothing: a run numbers the tags its collectors compare and
// keeps a body's answers for the first 64 of them in bits (bodyTags),
// the others in maps. With 60 the case's tags fall on both sides, with
// 70 all in the maps; the order must be Puppet's every time.
func TestCollectorTagsPastBits(t *testing.T) {
	src := filepath.Join("testdata", "oracle", "tags_collector_sources.pp")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(strings.TrimSuffix(src, ".pp") + ".order")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 60, 70} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "Notify <| tag == 'unused_%d' |>\n", i)
			}
			b.Write(text)
			p := filepath.Join(t.TempDir(), "tags.pp")
			if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			run, diags := orderOf(t, p)
			checkOracle(t, string(want), run, diags)
		})
	}
}
