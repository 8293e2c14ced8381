package cfengine

import "testing"

// $(sys.local_libdir) by version, as libenv/sysinfo.c sets it at
// cfengine/core's tags: undefined before 3.6, lib/MAJOR.MINOR in 3.6.x and
// 3.7.x, lib from 3.8.0 on.
func TestLibSubdir(t *testing.T) {
	for v, want := range map[string]string{
		"3.5.3": "-", "3.6.0": "lib/3.6", "3.6.7": "lib/3.6", "3.7.8": "lib/3.7",
		"3.8.0": "lib", "3.21.0": "lib", "3.27": "lib", "4.0.0": "lib", "": "lib",
	} {
		got, ok := libSubdir(v)
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("libSubdir(%q) = %q, want %q", v, got, want)
		}
	}
}

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
