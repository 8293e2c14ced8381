//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package filecache

import (
	"io"
	"os"
)

// mapFile reads f whole where there is no mmap.
func mapFile(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

func unmapFile([]byte) {}

func dropPages([]byte) {}
