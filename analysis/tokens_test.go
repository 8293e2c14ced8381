package analysis

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

func tokStr(toks []Token) string {
	var b []string
	for _, t := range toks {
		b = append(b, fmt.Sprintf("%d-%d %v", t.Start, t.End, t.Kind))
	}
	return strings.Join(b, ", ")
}

func TestFlattenTokens(t *testing.T) {
	text := []byte("0123456789abcdefghij")
	for _, tc := range []struct {
		in   []Token
		want string
	}{
		// an inner token cuts its outer one
		{[]Token{{0, 10, TokString, 0}, {3, 5, TokVariable, 0}}, "0-3 string, 3-5 variable, 5-10 string"},
		// order of the input does not matter, nesting does
		{[]Token{{3, 5, TokVariable, 0}, {0, 10, TokString, 0}, {4, 5, TokNumber, 0}}, "0-3 string, 3-4 variable, 4-5 number, 5-10 string"},
		// partial overlap: the later start wins where both are
		{[]Token{{0, 6, TokString, 0}, {4, 9, TokComment, 0}}, "0-4 string, 4-9 comment"},
		// same span: the later in the input wins (refinements come last)
		{[]Token{{2, 4, TokString, 0}, {2, 4, TokClass, 0}}, "2-4 class"},
		// same start: the shorter is inner
		{[]Token{{2, 4, TokString, 0}, {2, 8, TokComment, 0}}, "2-4 string, 4-8 comment"},
		// clipped to the text, empty ones dropped
		{[]Token{{-3, 2, TokKeyword, 0}, {18, 40, TokNumber, 0}, {5, 5, TokString, 0}}, "0-2 keyword, 18-20 number"},
		// a hole cuts its outer token and is not returned
		{[]Token{{0, 10, TokString, 0}, {2, 8, TokNone, 0}, {4, 5, TokVariable, 0}}, "0-2 string, 4-5 variable, 8-10 string"},
		// a child ending where its parent ends, a parent resumed twice
		{[]Token{{0, 9, TokString, 0}, {1, 2, TokVariable, 0}, {4, 9, TokVariable, 0}}, "0-1 string, 1-2 variable, 2-4 string, 4-9 variable"},
	} {
		if got := tokStr(FlattenTokens(tc.in, text)); got != tc.want {
			t.Errorf("FlattenTokens(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// boundaries inside a character move to its start
	utf := []byte("aé😀b")
	if got := tokStr(FlattenTokens([]Token{{2, 5, TokString, 0}, {5, 7, TokNumber, 0}}, utf)); got != "1-3 string, 3-7 number" {
		t.Errorf("inside characters: %s", got)
	}
}

// Property: whatever the input, the output is sorted, does not overlap,
// lies in the text, and gives each byte the token the rule picks.
func TestFlattenTokensProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	text := []byte(strings.Repeat("x", 60))
	for iter := 0; iter < 3000; iter++ {
		var in []Token
		for i := rng.Intn(8); i >= 0; i-- {
			a := rng.Intn(70) - 5
			in = append(in, Token{Start: a, End: a + rng.Intn(30), Kind: TokenKind(rng.Intn(int(numTokenKinds)))})
		}
		out := FlattenTokens(in, text)
		prev := 0
		for _, o := range out {
			if o.Start < prev || o.Start >= o.End || o.End > len(text) {
				t.Fatalf("%v -> %v: bad token %v", in, out, o)
			}
			prev = o.End
		}
		for b := 0; b < len(text); b++ {
			want := -1
			for i, x := range in {
				s, e := max(x.Start, 0), min(x.End, len(text))
				if s <= b && b < e {
					if w := want; w < 0 || s > max(in[w].Start, 0) || s == max(in[w].Start, 0) && (e < min(in[w].End, len(text)) || e == min(in[w].End, len(text))) {
						want = i
					}
				}
			}
			got := TokNone
			for _, o := range out {
				if o.Start <= b && b < o.End {
					got = o.Kind
				}
			}
			if want < 0 && got != TokNone || want >= 0 && got != in[want].Kind && !(in[want].Kind == TokNone && got == TokNone) {
				t.Fatalf("%v -> %v: byte %d is %v", in, out, b, got)
			}
		}
	}
}

func TestSortRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for iter := 0; iter < 500; iter++ {
		var xs []int
		for r := rng.Intn(6); r >= 0; r-- { // a few sorted runs
			v := rng.Intn(50)
			for i := rng.Intn(20); i >= 0; i-- {
				v += rng.Intn(4)
				xs = append(xs, v)
			}
		}
		if iter%7 == 0 { // or noise: many runs
			for i := range xs {
				xs[i] = rng.Intn(100)
			}
		}
		want := append([]int(nil), xs...)
		sort.Ints(want)
		got := sortRuns(append([]int(nil), xs...), func(a, b int) int { return a - b })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sortRuns(%v) = %v", xs, got)
		}
	}
}
