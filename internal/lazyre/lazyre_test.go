package lazyre

import "testing"

func TestLazy(t *testing.T) {
	r := New(`^a(b+)$`)
	if m := r.FindStringSubmatch("abb"); len(m) != 2 || m[1] != "bb" {
		t.Fatalf("%q", m)
	}
	bad := New(`a(`)
	if expr, err := CompileAll(); err == nil || expr != bad.String() {
		t.Fatalf("CompileAll: %q %v", expr, err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an expression that does not compile did not panic at its first use")
		}
	}()
	bad.MatchString("a")
}
