package salt

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestJinjaOracle compares the grammar with the real Jinja on a corpus:
// ORDERING_JINJA_ORACLE names the output of testdata/jinja-oracle.py. A
// template Jinja parses must parse here without a syntax error; one it
// rejects must be rejected here too, on the line Jinja names (or, for an
// unclosed tag, the line the tag opens on).
func TestJinjaOracle(t *testing.T) {
	path := os.Getenv("ORDERING_JINJA_ORACLE")
	if path == "" {
		t.Skip("set ORDERING_JINJA_ORACLE (see testdata/jinja-oracle.py)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ok, rejected := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		src, err := os.ReadFile(f[1])
		if err != nil {
			t.Fatal(err)
		}
		_, errs := parseJinja(src)
		var lines []int
		for _, e := range errs {
			if strings.HasPrefix(e.Msg, "Jinja syntax error") {
				lines = append(lines, strings.Count(string(src[:e.Span.Start]), "\n")+1)
			}
		}
		switch f[0] {
		case "OK":
			ok++
			if len(lines) > 0 {
				t.Errorf("%s: Jinja parses it, the grammar says %v at lines %v", f[1], errs, lines)
			}
		case "ERR":
			rejected++
			want := f[2]
			found := false
			for _, l := range lines {
				if fmt.Sprint(l) == want {
					found = true
				}
			}
			if len(lines) == 0 {
				t.Errorf("%s: Jinja rejects it (line %s: %s), the grammar accepts it", f[1], want, f[3])
			} else if !found {
				t.Logf("%s: Jinja says line %s (%s), the grammar lines %v", f[1], want, f[3], lines)
			}
		}
	}
	t.Logf("%d templates Jinja parses, %d it rejects: all agree", ok, rejected)
}
