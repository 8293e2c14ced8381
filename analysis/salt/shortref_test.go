package salt

import "testing"

// TestShortRef: hovers drop a state's name when it is its ID, and only
// then (an ID with spaces is one; a name that merely ends like the ID is
// not).
func TestShortRef(t *testing.T) {
	for _, c := range []struct{ ref, want string }{
		{"pkg.installed nginx nginx", "pkg.installed nginx"},
		{"file.managed /etc/salt/master /etc/salt/master", "file.managed /etc/salt/master"},
		{"service.running nginx-service nginx", "service.running nginx-service nginx"},
		{"cmd.run install it install it", "cmd.run install it"},
		{"cmd.run a b b", "cmd.run a b b"},
		{"cmd.run x x y", "cmd.run x x y"},
		{"pkg.installed * *", "pkg.installed *"},
		{"nodot a a", "nodot a a"},
		{"pkg.installed", "pkg.installed"},
	} {
		if got := shortRef(c.ref); got != c.want {
			t.Errorf("shortRef(%q) = %q, want %q", c.ref, got, c.want)
		}
	}
}
