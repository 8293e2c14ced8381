package chef

import "testing"

// Cookbook version constraints as Chef (Semverse) reads them.
func TestSatisfies(t *testing.T) {
	for _, c := range []struct {
		version, constraint string
		ok, known           bool
	}{
		{"1.2.3", "= 1.2.3", true, true},
		{"1.2.3", "1.2.3", true, true},
		{"1.2.3", ">= 0.0.0", true, true},
		{"1.2.3", "> 1.2.3", false, true},
		{"1.2.3", "< 2.0", true, true},
		{"1.2.3", "<= 1.2", false, true},
		{"1.2.3", "!= 1.2.3", false, true},
		{"1.9.0", "~> 1.2", true, true},
		{"2.0.0", "~> 1.2", false, true},
		{"1.2.9", "~> 1.2.3", true, true},
		{"1.3.0", "~> 1.2.3", false, true},
		{"1.2.0", "~> 1.2.3", false, true},
		{"1.0.0", "= 2.0.0", false, true},
		{"1.0.0", "latest", false, false},
		{"x", "= 1.0", false, false},
	} {
		ok, known := satisfies(c.version, c.constraint)
		if ok != c.ok || known != c.known {
			t.Errorf("satisfies(%q, %q) = %v, %v; want %v, %v", c.version, c.constraint, ok, known, c.ok, c.known)
		}
	}
}
