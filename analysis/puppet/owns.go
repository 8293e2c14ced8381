package puppet

import (
	"bytes"
	"strings"
)

// Owns: a .pp file, unless it is binary. `.pp` is also the extension of a
// compiled SELinux policy package (semodule_package; magic 0xf97cff8f,
// alekrain/salt_states' redis/custom_redis-sentinel.pp, which a Salt
// state installs): a manifest holds no NUL byte, so Puppet's "Syntax
// error" there was about a file it never reads.
func (s *System) Owns(path string, head func() []byte) bool {
	if !strings.HasSuffix(path, ".pp") {
		return false
	}
	h := head() // (a file read each time it is asked)
	return !bytes.HasPrefix(h, selinuxPolicyMagic) && bytes.IndexByte(h, 0) < 0
}

// selinuxPolicyMagic begins a SELinux policy package (little-endian
// 0xf97cff8f).
var selinuxPolicyMagic = []byte{0x8f, 0xff, 0x7c, 0xf9}
