package cfengine

import "testing"

// The cfengine_* hard classes at a version, and class expressions true
// on every host before anything runs.
func TestEverywhere(t *testing.T) {
	for _, c := range []struct {
		expr, version string
		want          tri
	}{
		{"any", "3.21.0", triTrue},
		{"!cfengine_3_5", "3.21.0", triTrue},
		{"cfengine_3_5", "3.21.0", triFalse},
		{"cfengine_3.!cfengine_3_20", "3.21.0", triTrue},
		{"cfengine_3_21_0", "3.21.0", triTrue},
		{"cfengine_3_21_0", "3.21", triMaybe},
		{"cfengine_3_6", "3.6.0", triTrue},
		{"linux", "3.21.0", triMaybe},
		{"linux|any", "3.21.0", triTrue},
		{"linux.!cfengine_3_5", "3.21.0", triMaybe},
		{"cfengine_3_", "3.21.0", triMaybe},
	} {
		if got := everywhere(c.expr, c.version); got != c.want {
			t.Errorf("everywhere(%q, %q) = %v, want %v", c.expr, c.version, got, c.want)
		}
	}
}
