package puppet

import (
	"bytes"
	"strings"
)

// Owns: every .pp file. Reading each one's head to tell a binary one
// apart cost a 4 KB read per manifest at each discovery (14 MB and 3,359
// reads on operations-puppet); parse reads the text anyway and takes a
// binary file for an empty manifest (binaryManifest).
func (s *System) Owns(path string, head func() []byte) bool {
	return strings.HasSuffix(path, ".pp")
}

// binaryManifest: text is no manifest but a binary file. `.pp` is also
// the extension of a compiled SELinux policy package (semodule_package;
// magic 0xf97cff8f, alekrain/salt_states' redis/custom_redis-sentinel.pp,
// which a Salt state installs), and a manifest holds no NUL byte: the
// "Syntax error" Puppet's parser gave there was about a file Puppet never
// reads.
func binaryManifest(text []byte) bool {
	head := text[:min(len(text), 4096)]
	return bytes.HasPrefix(head, selinuxPolicyMagic) || bytes.IndexByte(head, 0) >= 0
}

// selinuxPolicyMagic begins a SELinux policy package (little-endian
// 0xf97cff8f).
var selinuxPolicyMagic = []byte{0x8f, 0xff, 0x7c, 0xf9}
