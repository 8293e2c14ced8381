//go:build linux || darwin || freebsd || netbsd || openbsd

package filecache

import (
	"os"
	"syscall"
)

// mapFile maps f read-only: a run reads only the pages of the values it
// asks for. Packs are never written in place, only renamed and deleted,
// so the mapping stays valid.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(b []byte) { syscall.Munmap(b) }

// dropPages gives back b's resident pages; the next read of one brings
// it back from the file (the page cache).
func dropPages(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
