package puppet

import "testing"

// A compiled SELinux policy package is a .pp file too, and binary: not a
// manifest (alekrain/salt_states' redis/custom_redis-sentinel.pp drew a
// false "Syntax error at '|'").
func TestOwnsSkipsBinary(t *testing.T) {
	s := New()
	for _, c := range []struct {
		path string
		head string
		want bool
	}{
		{"manifests/init.pp", "class a {}\n", true},
		{"manifests/empty.pp", "", true},
		{"redis/custom_redis-sentinel.pp", "\x8f\xff\x7c\xf9\x02\x00\x00\x00", false},
		{"blob.pp", "notify { 'a': }\x00\x01", false},
		{"init.sls", "a: b\n", false},
	} {
		head := []byte(c.head)
		if got := s.Owns(c.path, func() []byte { return head }); got != c.want {
			t.Errorf("Owns(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}
