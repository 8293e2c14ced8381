package puppet

import (
	"math/rand"
	"reflect"
	"regexp"
	"testing"
)

// TestTypesInStringMatchesRegexp: the hand scanner finds what the regular
// expression it replaced finds, on strings made of the bytes that matter
// (names, digits, blanks, brackets, non-ASCII).
func TestTypesInStringMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`([A-Za-z_:][A-Za-z0-9_:]*)\s*\[`)
	alphabet := []string{"a", "Z", "_", ":", "0", "9", " ", "\t", "\n", "\v", "[", "]", "'", "é", "$", "{", "File", "::x"}
	rng := rand.New(rand.NewSource(1))
	cases := []string{"", "File[", "File ['a']", "9[", "a9b [x] ::c[", "Package['x'] -> Service [ 'y' ]", "x\v[", "é[", "12ab["}
	for range 20000 {
		n := rng.Intn(12)
		s := ""
		for range n {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		var want, got []string
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			want = append(want, m[1])
		}
		typesInString(s, func(name string) { got = append(got, name) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	}
}
