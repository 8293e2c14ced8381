package puppet

import (
	"math/rand"
	"strings"
	"testing"
)

// oneSpaced must be strings.Join(strings.Fields(s), " ") on any text.
func TestOneSpaced(t *testing.T) {
	pieces := []string{"a", "$x", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", "\u0085", "é", "==", "'b c'", ""}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(8); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := oneSpaced(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneSpaced(%q) = %q, want %q", s, got, want)
		}
	}
}
